"""The suite the loopback farm runs on its four boards through `pytest --lg-env`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hapbridge_labgrid import HapbridgeDriver, PlayedLate, RunFailed


def test_info_names_the_board_on_its_port(board: HapbridgeDriver) -> None:
    info = board.info()
    assert info["schema"] == "hapbridge-info/1"
    assert info["usb"]["port"] == board.board.path
    assert info["serial"] == board.board.serial


def test_measure_puts_each_figure_in_junit(board: HapbridgeDriver, hapbridge_figure) -> None:  # type: ignore[no-untyped-def]
    # The emulated boards run in real time on a shared host: a play the host sent late is
    # exit 4 (PlayedLate), which a HIL script's `retries` would retry; so does this test.
    for attempt in range(3):
        try:
            record = board.measure("ios.impact.heavy")
            break
        except PlayedLate as late:
            print(f"attempt {attempt + 1}: {late}")
    else:
        pytest.fail("three plays in a row were late (exit 4)")
    figures = {m["name"]: m for m in record["measurements"]}
    assert "peak acceleration" in figures, record.get("unmeasured")
    peak = figures["peak acceleration"]
    hapbridge_figure("peak_acceleration", peak["value"], peak["unit"], low=0.05, high=5.0)
    for m in record["measurements"]:
        if m["name"] != "peak acceleration":
            hapbridge_figure(m["name"].replace(" ", "_"), m["value"], m["unit"])


def _watch_lines(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.endswith("}")]


def test_flash_keeps_the_resource_and_the_board_is_back_within_ten_seconds(board: HapbridgeDriver,
                                                                           tmp_path: Path) -> None:
    if board.target.name != os.environ.get("FLASH_TARGET"):
        pytest.skip("one board of the farm is flashed (FLASH_TARGET): each flash is the same walk")
    # The place's resource as the coordinator has it (EXPORTER/GROUP/CLASS), watched from
    # a labgrid client session of its own while the board is flashed.
    exporter, group, cls = os.environ["FLASH_RESOURCE"].split("/")
    seen_file = tmp_path / "seen.jsonl"
    watcher = subprocess.Popen([sys.executable, os.environ["WATCH_RESOURCE"], os.environ["LG_COORDINATOR"],
                                exporter, group, cls, str(seen_file)])
    try:
        deadline = time.monotonic() + 60
        while not _watch_lines(seen_file):
            assert watcher.poll() is None and time.monotonic() < deadline, "the watcher did not start"
            time.sleep(0.05)
        before = (board.board.host, board.board.name, board.board.path)
        record = board.flash()
        assert record.get("ok") is True, record
        verified = next((t for t, line in board.last_stderr if line.startswith("verify") and " done" in line), None)
        assert verified is not None, board.last_stderr
        # Bounded poll for the board back as its firmware, as the watcher sees it.
        while not any(s["identity"] == "firmware" and s["avail"] and s["t"] > verified
                      for s in _watch_lines(seen_file)) and time.monotonic() - verified < 30:
            time.sleep(0.05)
    finally:
        watcher.terminate()
        watcher.wait(timeout=30)
    seen = _watch_lines(seen_file)
    print("the resource during the flash:", [(round(s["t"] - verified, 3), s["identity"], s["avail"]) for s in seen])
    # One resource the whole time: never gone from the coordinator, its identity a property
    # that walked firmware → bootloader → firmware.
    assert all(s["present"] for s in seen), seen
    walk = [s["identity"] for s in seen]
    collapsed = [i for n, i in enumerate(walk) if n == 0 or walk[n - 1] != i]
    assert collapsed[0] == "firmware" and collapsed[-1] == "firmware", collapsed
    assert any(i in ("caterina", "atmel-dfu") for i in collapsed), collapsed
    back = next(s["t"] for s in seen if s["identity"] == "firmware" and s["avail"] and s["t"] > verified) - verified
    print(f"flash: available again as firmware {back:.3f} s after the image verified")
    assert back < 10.0
    board.ensure_available(10.0)
    board.target.activate(board)
    assert (board.board.host, board.board.name, board.board.path) == before
    assert board.info()["usb"]["port"] == board.board.path


def test_the_strategy_walks_a_board_from_off_to_ready(board: HapbridgeDriver) -> None:
    if board.target.name != os.environ.get("STRATEGY_TARGET"):
        pytest.skip("one board of the farm is walked by the strategy (STRATEGY_TARGET)")
    strategy = board.target.get_driver("HapbridgeStrategy")
    strategy.transition("ready")  # off (no power switch here) → flashed → calibrated → ready
    assert strategy.status.name == "ready"
    assert strategy.flash_record is not None and strategy.flash_record.get("error") is None
    assert strategy.board_info is not None
    # info lists the actuators the board's host keeps a calibration for, by the board's serial.
    assert board.board.actuator in strategy.board_info["calibrations"], strategy.board_info


def test_run_brings_back_the_record_and_the_junit_and_raises_on_a_fail(board: HapbridgeDriver) -> None:
    if board.target.name != os.environ.get("RUN_TARGET"):
        pytest.skip("one board of the farm runs the HIL script (RUN_TARGET)")
    suite = Path(__file__).resolve().parent / "hil-suite.yaml"
    result = board.run(suite, check=False)
    assert result.status == 11  # "impossible peak" FAILs, nothing ERRORs
    outcomes = {c.name: c.outcome for c in result.junit.cases}
    # hapbridge run names each testcase for its test and its device (the bench file names it "dut").
    assert outcomes == {"bring-up [dut]": "passed", "impossible peak [dut]": "failure"}, result.junit
    assert result.record.get("schema", "").startswith("hapbridge-hil-run/")
    # The bench file and the script went over to the board's host (labgrid's ManagedFile,
    # detect_nfs off in the farm): hapbridge ran labgrid's copies, not the local paths.
    for path in (result.bench_path, result.suite_path):
        assert path.startswith("/var/cache/labgrid/"), (result.bench_path, result.suite_path)
    assert result.suite_path.endswith("/hil-suite.yaml") and result.suite_path != str(suite)
    with pytest.raises(RunFailed) as raised:
        board.run(suite)
    assert raised.value.status == 11 and raised.value.host == board.board.host


def test_the_board_answers_until_its_host_goes(board: HapbridgeDriver) -> None:
    """The test under way when the outer test kills an exporter: the first target of
    the host the outer test names signals it has started, and measures until stopped."""
    marker_dir = Path(os.environ["MARKER_DIR"])
    (marker_dir / f"{board.target.name}.started").write_text("")
    victim = board.target.name == os.environ.get("VICTIM")
    # The victim asks its board (info: nothing timed) until its exporter is killed
    # (bounded: the outer test kills it as soon as it sees the marker); the others a few
    # seconds each.
    deadline = time.monotonic() + (120.0 if victim else 3.0)
    while time.monotonic() < deadline:
        assert board.info()["serial"] == board.board.serial
    assert not victim, "the victim's exporter was not killed within 120 s"
