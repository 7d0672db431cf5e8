"""A HapbridgeBoard used locally (no coordinator): labgrid's own UdevManager sees the
board `hapbridge emulate bridge` plugs in, through umockdev's udev events."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from farm import hapbridge_executable

SCRIPT = r'''
import json, os, subprocess, sys
from labgrid import Environment
env = Environment(sys.argv[1])
target = env.get_target("local")
driver = target.get_driver("HapbridgeDriver")
board = driver.board
seen = {"identity": board.identity.value, "address": board.address, "serial": board.serial,
        "info_serial": driver.info()["serial"]}
hapbridge = os.environ["HAPBRIDGE"]
# A step that outlives its timeout on a local board: ended here (timeout(1), SIGINT),
# and the board is free for the next step at once.
from hapbridge_labgrid import StepTimedOut
try:
    driver.sweep(start_hz=90, stop_hz=400, timeout=1)
except StepTimedOut as e:
    seen["timed_out"] = "stopped there (SIGINT)" in str(e)
seen["info_after_timeout"] = driver.info()["serial"]
subprocess.run([hapbridge, "emulate", "control", "unplug", "1-1"], check=True, capture_output=True)
target.await_resources([board], timeout=10.0, avail=False)
seen["after_unplug"] = board.avail
# labgrid deactivated the driver when its resource went away; the driver says why.
seen["state_after_unplug"] = driver.state.name
try:
    driver.ensure_available()
except Exception as e:
    seen["info_unplugged"] = type(e).__name__
subprocess.run([hapbridge, "emulate", "control", "replug", "1-1"], check=True, capture_output=True)
target.await_resources([board], timeout=10.0, avail=True)
seen["after_replug"] = board.avail
# labgrid deactivates a driver whose resource went away; activating it again is the caller's.
seen["active_after_replug"] = driver.state.name
target.activate(driver)
seen["info_again"] = driver.info()["serial"]
print(json.dumps(seen))
'''


def test_a_local_board_follows_unplug_and_replug_and_answers_info_by_its_port(tmp_path: Path) -> None:
    hapbridge = hapbridge_executable()
    env_yaml = tmp_path / "env.yaml"
    env_yaml.write_text("targets:\n  local:\n    resources:\n      HapbridgeBoard:\n"
                        "        match: {sys_name: '1-1'}\n        actuator: pmd-c10-100\n"
                        f"        hapbridge: {hapbridge}\n"
                        "    drivers:\n      HapbridgeDriver: {wait_available: 1}\nimports: [hapbridge_labgrid]\n")
    script = tmp_path / "local.py"
    script.write_text(SCRIPT)
    done = subprocess.run([hapbridge, "emulate", "bridge", "--serial", "LOCAL-1", "--accelerometer", "--", sys.executable,
                           str(script), str(env_yaml)], capture_output=True, text=True, timeout=180,
                          env={**__import__("os").environ, "HAPBRIDGE": hapbridge})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"identity": "firmware", "address": "usb:1-1", "serial": "LOCAL-1", "info_serial": "LOCAL-1",
                    "timed_out": True, "info_after_timeout": "LOCAL-1",
                    "after_unplug": False, "state_after_unplug": "bound", "info_unplugged": "BoardUnavailable", "after_replug": True,
                    "active_after_replug": "bound",
                    "info_again": "LOCAL-1"}
