"""`pytest --lg-env` running one suite on four boards across two exporters' hosts, through
labgrid's own pytest plugin, remote execution and coordinator; a flash on one board; an
exporter killed while a test on its host is under way."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from farm import HERE, LoopbackFarm, poll

SUITE = HERE.parent / "loopback" / "boards_suite"
PLACES = ["bench-a-1", "bench-a-2", "bench-b-1", "bench-b-2"]
# How long after its exporter is killed a board's test may take to ERROR, from the design:
# labgrid 26's coordinator drops an exporter whose connection closes at once, and one
# whose host went silent after its gRPC keepalive (ping every 10 s, 10 s to answer:
# labgrid/remote/coordinator.py `serve`), ~20 s; a test then ERRORs at its next step,
# immediately (the resource is gone from the coordinator) or after the driver's
# wait_available (10 s); the step under way ends first (an info, ~1 s; 10 s allowed).
# 20 + 10 + 10 = 40 s. Killed on loopback, the connection closes at once: 1–5 s measured.
ERROR_BOUND = 40.0


def _outcomes(junit: Path) -> dict[str, tuple[str, str]]:
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for kind in ("error", "failure", "skipped"):
            found = case.find(kind)
            if found is not None:
                outcome, message = kind, found.get("message", "")
                break
        result[case.get("name", "")] = (outcome, message)
    return result


def test_one_suite_runs_on_four_boards_and_a_killed_exporter_errors_only_its_own_boards(
        farm: LoopbackFarm, tmp_path: Path) -> None:
    for place in PLACES:
        farm.client("-p", place, "acquire")
    try:
        env_yaml = farm.env_yaml(PLACES)
        junit = tmp_path / "suite.xml"
        markers = tmp_path / "markers"
        markers.mkdir()
        env = dict(farm.env, MARKER_DIR=str(markers), FLASH_TARGET="bench-a-1", VICTIM="bench-b-1",
                   STRATEGY_TARGET="bench-a-2", RUN_TARGET="bench-b-2",
                   FLASH_RESOURCE="bench-a/port-1/HapbridgeBoard", WATCH_RESOURCE=str(HERE / "watch_resource.py"))
        started = time.monotonic()
        # No -s: the tests' output is captured and, with junit_logging=system-out, lands
        # in each testcase's <system-out> (the form GitLab shows; checked below).
        inner = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "--lg-env", str(env_yaml),
             f"--junitxml={junit}", "-o", "junit_family=xunit1", "-o", "junit_logging=system-out",
             "--rootdir", str(SUITE), str(SUITE)],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            poll(lambda: (markers / "bench-b-1.started").exists() or inner.poll() is not None, 600,
                 "the victim's test under way")
            assert inner.poll() is None, "the suite ended before the victim's test started"
            killed = time.monotonic()
            farm.kill_exporter("bench-b")
            output, _ = inner.communicate(timeout=600)
        finally:
            if inner.poll() is None:
                inner.kill()
        after_kill = time.monotonic() - killed
        print(output[-6000:])
        outcomes = _outcomes(junit)
        root = ET.parse(junit).getroot()
        system_out = {c.get("name", ""): c.findtext("system-out") or "" for c in root.iter("testcase")}
        print("\n".join(line for out in system_out.values() for line in out.splitlines()
                        if "available again" in line or "attempt" in line or "during the flash" in line))
        print(f"suite on four boards: {killed - started:.1f} s to the kill, {after_kill:.1f} s after it")
        for place in PLACES:
            assert outcomes[f"test_info_names_the_board_on_its_port[{place}]"][0] == "passed", outcomes
            assert outcomes[f"test_measure_puts_each_figure_in_junit[{place}]"][0] == "passed", outcomes
        assert outcomes["test_flash_keeps_the_resource_and_the_board_is_back_within_ten_seconds[bench-a-1]"][0] == "passed", outcomes
        assert outcomes["test_the_strategy_walks_a_board_from_off_to_ready[bench-a-2]"][0] == "passed", outcomes
        assert outcomes["test_run_brings_back_the_record_and_the_junit_and_raises_on_a_fail[bench-b-2]"][0] == "passed", outcomes
        # The killed exporter's boards ERROR (the one under way and the one after it);
        # the other host's tests, run after the kill, finish and pass.
        steady = "test_the_board_answers_until_its_host_goes"
        assert outcomes[f"{steady}[bench-b-1]"][0] == "error", outcomes[f"{steady}[bench-b-1]"]
        assert outcomes[f"{steady}[bench-b-2]"][0] == "error", outcomes[f"{steady}[bench-b-2]"]
        assert outcomes[f"{steady}[bench-a-1]"][0] == "passed", outcomes[f"{steady}[bench-a-1]"]
        assert outcomes[f"{steady}[bench-a-2]"][0] == "passed", outcomes[f"{steady}[bench-a-2]"]
        assert "exporter" in outcomes[f"{steady}[bench-b-1]"][1] or "not available" in outcomes[f"{steady}[bench-b-1]"][1]
        # Each ERROR within ERROR_BOUND of the kill (the inner suite's conftest stamps
        # each test phase's report on the machine's one monotonic clock).
        reports = [json.loads(line) for line in (markers / "reports.jsonl").read_text().splitlines()]
        for place in ("bench-b-1", "bench-b-2"):
            errored = next(r for r in reports if r["nodeid"].endswith(f"{steady}[{place}]") and r["outcome"] == "failed")
            took = errored["t"] - killed
            print(f"{place}: ERROR {took:.2f} s after its exporter was killed (bound {ERROR_BOUND:g} s)")
            assert took < ERROR_BOUND
        # Each figure with its unit, limits and verdict in pytest's JUnit: the properties…
        case = next(c for c in root.iter("testcase") if c.get("name") == "test_measure_puts_each_figure_in_junit[bench-a-1]")
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert props["figure.peak_acceleration.unit"] == "g"
        assert props["figure.peak_acceleration.low"] == "0.05" and props["figure.peak_acceleration.high"] == "5"
        assert props["figure.peak_acceleration.verdict"] == "PASS"
        # …and one line per figure in its <system-out>, with the same unit, limits and verdict.
        for place in PLACES:
            out = system_out[f"test_measure_puts_each_figure_in_junit[{place}]"]
            figure_lines = [line for line in out.splitlines() if line.startswith("figure ")]
            assert any(re.fullmatch(r"figure peak_acceleration = [0-9.e+-]+ g \[0\.05, 5\] PASS", line)
                       for line in figure_lines), out
            for line in figure_lines:
                assert re.fullmatch(r"figure \S+ = \S+ \S+ \[[^]]*\] (PASS|FAIL|UNCHECKED)", line), line
    finally:
        for place in PLACES:
            farm.client("-p", place, "release", check=False)
