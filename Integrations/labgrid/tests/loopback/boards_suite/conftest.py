"""One suite for every board of the environment (`pytest --lg-env env.yaml`): each test
runs once per target, the targets interleaved across the exporters' hosts."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from labgrid.pytestplugin.hooks import LABGRID_ENV_KEY

from hapbridge_labgrid import HapbridgeDriver


def _targets(config: pytest.Config) -> list[str]:
    env = config.stash.get(LABGRID_ENV_KEY, None)
    if env is None:
        return []
    names = list(env.config.get_targets().keys())
    by_host: dict[str, list[str]] = {}
    for name in names:
        by_host.setdefault(name.rsplit("-", 1)[0], []).append(name)
    interleaved: list[str] = []
    while any(by_host.values()):
        for queue in by_host.values():
            if queue:
                interleaved.append(queue.pop(0))
    return interleaved


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "board" in metafunc.fixturenames:
        metafunc.parametrize("board", _targets(metafunc.config), indirect=True)


@pytest.fixture
def board(request: pytest.FixtureRequest, env) -> HapbridgeDriver:  # type: ignore[no-untyped-def]
    target = env.get_target(request.param)
    driver: HapbridgeDriver = target.get_driver("HapbridgeDriver", activate=False)
    # A board whose exporter is gone is not activated: the test ERRORs here, in set-up.
    driver.ensure_available()
    target.activate(driver)
    return driver


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test phase's outcome with the time.monotonic() it was reported (one clock for
    every process of the machine), for the outer test to time the ERRORs a killed
    exporter gives from the moment it killed it."""
    marker_dir = os.environ.get("MARKER_DIR")
    if marker_dir:
        with open(Path(marker_dir) / "reports.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps({"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
                                "t": time.monotonic()}) + "\n")
