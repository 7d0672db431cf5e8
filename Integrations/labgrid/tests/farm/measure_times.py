"""Wall times of the loopback farm, by hand (not a test: no time is asserted anywhere):

    HAPBRIDGE=.build/release/hapbridge PATH=.build/labgrid-venv/bin:$PATH \\
        .build/labgrid-venv/bin/python Integrations/labgrid/tests/farm/measure_times.py

For one board on one exporter, then four boards on two: the farm's start (coordinator,
emulations, sshds, exporters, places, every board available), and `pytest --lg-env`
running the suite's info and measure tests on every board (each a hapbridge command
over ssh), with `time.monotonic()` around each; the machine's own baseline beside them:
one `hapbridge info` run directly under `hapbridge emulate bridge`.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from farm import LoopbackFarm  # noqa: E402

SUITE = Path(__file__).resolve().parent.parent / "loopback" / "boards_suite"


def measure(hosts: dict[str, int]) -> tuple[float, float, str]:
    with tempfile.TemporaryDirectory(prefix="farm-times-") as scratch:
        root = Path(scratch)
        farm = LoopbackFarm(root, hosts)
        started = time.monotonic()
        try:
            farm.start()
            up = time.monotonic() - started
            places = [farm.place(h, p) for h, n in hosts.items() for p in range(1, n + 1)]
            for place in places:
                farm.client("-p", place, "acquire")
            env_yaml = farm.env_yaml(places)
            began = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--lg-env",
                                   str(env_yaml), "-k", "info_names or measure_puts", "--rootdir", str(SUITE),
                                   str(SUITE)], env=dict(farm.env, MARKER_DIR=scratch), cwd=root,
                                  capture_output=True, text=True)
            suite = time.monotonic() - began
            return up, suite, done.stdout.strip().splitlines()[-1]
        finally:
            farm.stop()


def baseline() -> float:
    hapbridge = LoopbackFarm(Path(tempfile.gettempdir()), {}).hapbridge
    began = time.monotonic()
    subprocess.run([hapbridge, "emulate", "bridge", "--", hapbridge, "info", "--device", "usb:1-1", "--json"],
                   capture_output=True, check=True)
    return time.monotonic() - began


if __name__ == "__main__":
    print(f"baseline: emulate bridge + one hapbridge info, no labgrid: {baseline():.2f} s")
    for hosts in ({"bench-a": 1}, {"bench-a": 2, "bench-b": 2}):
        up, suite, summary = measure(hosts)
        boards = sum(hosts.values())
        print(f"{boards} board(s) on {len(hosts)} exporter(s): farm up {up:.1f} s; "
              f"pytest --lg-env info+measure on each {suite:.1f} s ({summary})")
