"""The loopback farm the end-to-end tests share: two exporter hosts, two boards each."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from farm import LoopbackFarm, ResourceWatch, missing_tool


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackFarm]:
    missing = missing_tool()
    if missing is not None:
        pytest.fail(f"{missing} not found: scripts/setup installs it (scripts/apt-packages.txt)")
    root = Path(tmp_path_factory.mktemp("farm"))
    farm = LoopbackFarm(root, {"bench-a": 2, "bench-b": 2}, ft232h_hosts={"bench-c": "FTLAB01"})
    try:
        farm.start()
        yield farm
    finally:
        farm.stop()


@pytest.fixture
def watch(farm: LoopbackFarm) -> Iterator[ResourceWatch]:
    w = ResourceWatch(farm.coordinator)
    yield w
    w.close()
collect_ignore = ["boards_suite"]
