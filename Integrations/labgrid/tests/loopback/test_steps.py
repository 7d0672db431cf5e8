"""HapbridgeDriver's steps through labgrid's remote execution, in this process: a farm of
its own (one exporter host with two boards, and one with an FT232H), the places
acquired, one labgrid Environment for the module (labgrid keeps one coordinator session
per process, so the in-process tests share one farm).

What each test pins: a step's timeout ends hapbridge on the exporter's host, not only
the local ssh client; flash(image) copies the image over (labgrid's ManagedFile with
``detect_nfs: false``: on loopback the "host" shares this file system) and a bad image
is refused before anything is erased; calibrate and sweep; an FT232H by its serial; the
strategy's power path, with a stand-in for labgrid's USBPowerDriver (the emulation has
no hub with switchable ports: the stand-in unplugs and replugs the board's port, which
is what a hub port switched off and on does to the board)."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import attr
import pytest
from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.protocol import PowerProtocol

import hapbridge_labgrid.driver as driver_module
from farm import LoopbackFarm, missing_tool, poll
from hapbridge_labgrid import HapbridgeDriver, ImageRefused, StepTimedOut

PLACES = {"a1": "bench-a-1", "a2": "bench-a-2", "ftdi": "bench-c-ftdi"}
_FARM: list[LoopbackFarm] = []  # the stand-in power driver's farm


@target_factory.reg_driver
@attr.s(eq=False)
class EmulatedPortPower(Driver, PowerProtocol):  # type: ignore[misc]
    """Stands in for labgrid's USBPowerDriver on a hub port: switches the emulated
    board's port off (unplug: the board leaves its port, as when its hub port's power
    is cut) and on (replug) through ``hapbridge emulate control``."""

    bindings: dict[str, object] = {}
    host = attr.ib(validator=attr.validators.instance_of(str))
    port = attr.ib(validator=attr.validators.instance_of(str))
    calls: list[str] = []

    @Driver.check_active
    def on(self) -> None:
        EmulatedPortPower.calls.append("on")
        _FARM[0].emulate_control(self.host, "replug", self.port)

    @Driver.check_active
    def off(self) -> None:
        EmulatedPortPower.calls.append("off")
        _FARM[0].emulate_control(self.host, "unplug", self.port)

    @Driver.check_active
    def cycle(self) -> None:
        self.off()
        self.on()


@pytest.fixture(scope="module")
def steps_farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackFarm]:
    missing = missing_tool()
    if missing is not None:
        pytest.fail(f"{missing} not found: scripts/setup installs it (scripts/apt-packages.txt)")
    farm = LoopbackFarm(Path(tmp_path_factory.mktemp("steps-farm")), {"bench-a": 2},
                        ft232h_hosts={"bench-c": "FTLAB01"})
    try:
        farm.start()
        _FARM[:] = [farm]
        yield farm
    finally:
        farm.stop()


@pytest.fixture(scope="module")
def lab(steps_farm: LoopbackFarm) -> Iterator[object]:
    from labgrid import Environment
    farm = steps_farm
    env_yaml = farm.root / "env-steps.yaml"
    env_yaml.write_text(
        "targets:\n"
        f"  a1:\n    resources:\n      RemotePlace: {{name: {PLACES['a1']}}}\n"
        "    drivers:\n      HapbridgeDriver: {detect_nfs: false}\n"
        f"  a2:\n    resources:\n      RemotePlace: {{name: {PLACES['a2']}}}\n"
        "    drivers:\n      EmulatedPortPower: {host: bench-a, port: '1-2'}\n"
        "      HapbridgeDriver: {detect_nfs: false}\n      HapbridgeStrategy: {}\n"
        f"  ftdi:\n    resources:\n      RemotePlace: {{name: {PLACES['ftdi']}}}\n"
        "    drivers:\n      HapbridgeDriver: {}\n"
        f"imports: [hapbridge_labgrid]\noptions:\n  coordinator_address: {farm.coordinator}\n")
    for place in PLACES.values():
        farm.client("-p", place, "acquire")
    saved_path = os.environ["PATH"]
    os.environ["PATH"] = farm.env["PATH"]  # the farm's ssh configuration, for labgrid's ssh
    env = Environment(str(env_yaml))
    try:
        yield env
    finally:
        env.cleanup()
        os.environ["PATH"] = saved_path
        for place in PLACES.values():
            farm.client("-p", place, "release", check=False)


def _driver(lab: object, target: str) -> HapbridgeDriver:
    driver: HapbridgeDriver = lab.get_target(target).get_driver("HapbridgeDriver")  # type: ignore[attr-defined]
    return driver


def _step_processes(*words: str) -> list[str]:
    """This machine's processes (the loopback hosts' too) whose command line holds every
    word: a hapbridge of a step, by its subcommand and its device."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode("utf-8", "replace") for a in argv if a]
        if args and Path(args[0]).name in ("hapbridge", "timeout") and all(w in args for w in words):
            found.append(f"{entry.name}: {' '.join(args)}")
    return found


# A sweep over every OL_LRA_PERIOD code from 90 to 400 Hz (periods 98.46 µs apart, ~85
# of them at 150 ms settle + 100 ms window each): ~20 s of driving the actuator.
LONG_SWEEP = (90.0, 400.0)


def test_a_step_that_outlives_its_timeout_is_ended_on_the_exporters_host(lab: object) -> None:
    board = _driver(lab, "a1")
    with pytest.raises(StepTimedOut, match=r"did not end within 1 s; stopped there \(SIGINT\)"):
        board.sweep(start_hz=LONG_SWEEP[0], stop_hz=LONG_SWEEP[1], timeout=1)
    # The host's timeout(1) sent hapbridge SIGINT (it stops the actuator and exits 130)
    # and the step raised on timeout's 124; nothing of the step is left on the host
    # (the bound is well inside the sweep's own run time, which is what would end it
    # if the step left it running).
    gone = poll(lambda: not _step_processes("sweep", board.address), 10, "the timed-out sweep gone from the host")
    print(f"timed-out sweep gone from the host {gone:.2f} s after StepTimedOut")
    # The board answers the next step: a sweep left running would still hold it ("in use
    # by another program (its interface is claimed)", exit 1).
    assert board.info()["serial"] == board.board.serial


def test_when_the_local_wait_expires_first_the_remote_process_group_is_killed(
        lab: object, monkeypatch: pytest.MonkeyPatch) -> None:
    board = _driver(lab, "a1")
    # A host whose timeout(1) would not end the command in time: the remote timeout is
    # 60 s, the local wait made 2 s (60 + KILL_AFTER + LOCAL_GRACE).
    monkeypatch.setattr(driver_module, "LOCAL_GRACE", 2 - 60 - driver_module.KILL_AFTER)
    with pytest.raises(StepTimedOut, match=r"its process group there was sent SIGINT, then SIGKILL"):
        board.sweep(start_hz=LONG_SWEEP[0], stop_hz=LONG_SWEEP[1], timeout=60)
    # Gone long before the sweep's own end or the host's 60 s timeout would end it.
    poll(lambda: not _step_processes("sweep", board.address), 10, "the sweep's process group killed on the host")
    assert board.info()["serial"] == board.board.serial


def test_a_timeout_that_is_not_a_positive_number_is_refused_before_anything_runs(lab: object) -> None:
    board = _driver(lab, "a1")
    # timeout(1) would take 0 as "never" and a negative one as its own error (125).
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"sweep: timeout .*: must be a positive number of seconds"):
            board.sweep(timeout=bad)


def _firmware_image(farm: LoopbackFarm) -> Path:
    # The image the host's hapbridge carries, where it looks for it
    # (Sources/Flashing/CarriedFirmware.swift): an installed one's PREFIX/share/hapbridge/
    # firmware, a checkout's build (.build/release/hapbridge, .build/release a link) its
    # Firmware/build.
    executable = Path(os.path.abspath(farm.hapbridge))
    candidates = [executable.parents[1] / "share/hapbridge/firmware/hapbridge-32u4.hex",
                  *(parent / "Firmware/build/hapbridge-32u4.hex" for parent in executable.parents)]
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        pytest.fail(f"no firmware image carried with {farm.hapbridge} (share/hapbridge/firmware or a "
                    "checkout's Firmware/build: `make -C Firmware` or Firmware/test.sh builds it)")
    return found


def test_flash_copies_the_image_to_the_exporters_host_and_flashes_the_copy(
        lab: object, steps_farm: LoopbackFarm, tmp_path: Path) -> None:
    board = _driver(lab, "a1")
    local = tmp_path / "bench-image.hex"
    shutil.copyfile(_firmware_image(steps_farm), local)
    record = board.flash(local)
    assert record["ok"] is True and record["verifiedBytes"] > 0, record
    # The path hapbridge flashed on the host is labgrid's managed copy
    # (/var/cache/labgrid/USER/SHA256/NAME), not the local file.
    digest = hashlib.sha256(local.read_bytes()).hexdigest()
    assert record["image"] != str(local)
    assert record["image"].startswith("/var/cache/labgrid/") and record["image"].endswith(f"/{digest}/{local.name}"), record
    board.ensure_available(10.0)
    lab.get_target("a1").activate(board)  # type: ignore[attr-defined]
    assert board.info()["serial"] == board.board.serial


def test_a_bad_image_is_refused_on_the_host_before_anything_is_erased(lab: object, tmp_path: Path) -> None:
    board = _driver(lab, "a1")
    bad = tmp_path / "bad.hex"
    bad.write_text(":10000000DEADBEEF\n:00000001FF\n")
    with pytest.raises(ImageRefused) as refused:
        board.flash(bad)
    assert refused.value.status == 5 and refused.value.host == "bench-a"
    assert refused.value.record is not None and refused.value.record["error"] == "bad-image"
    # hapbridge names the copy on the host, and says nothing was erased.
    message = refused.value.record["message"]
    assert message.startswith("/var/cache/labgrid/") and "nothing was erased" in message, message
    # The board never left its firmware: it answers at once, as itself.
    info = board.info()
    assert info["serial"] == board.board.serial and board.board.identity == "firmware"


def test_calibrate_through_the_farm_keeps_the_calibration_on_the_boards_host(lab: object) -> None:
    board = _driver(lab, "a2")
    lab.get_target("a2").activate(board)  # type: ignore[attr-defined]
    report = board.calibrate()
    assert "PASS" in report, report
    assert board.board.actuator in board.info()["calibrations"]


def test_sweep_through_the_farm_finds_the_resonance_in_a_short_range(lab: object) -> None:
    board = _driver(lab, "a2")
    lab.get_target("a2").activate(board)  # type: ignore[attr-defined]
    # pmd-c10-100: f0 175 Hz, Q 12 (Hardware/actuators): ±12 % holds the resonance.
    record = board.sweep(start_hz=155, stop_hz=195)
    assert record["schema"] == "hapbridge-sweep/1" and record["source"] == "sensor", record
    points = [p["frequencyHz"] for p in record["points"]]
    assert points and min(points) >= 155 - 5 and max(points) <= 195 + 5, points
    assert record["resonance"] is not None and 155 <= record["resonance"]["f0Hz"] <= 195, record["resonance"]


def test_an_ft232h_exported_by_its_serial_is_driven_over_ssh_by_its_ftdi_address(lab: object) -> None:
    driver = _driver(lab, "ftdi")
    assert driver.address == "ftdi:FTLAB01"
    info = driver.info()
    assert info["serial"] == "FTLAB01", info
    assert driver.host == "bench-c"


def test_the_strategy_switches_the_power_off_and_on_through_a_power_driver(lab: object) -> None:
    target = lab.get_target("a2")  # type: ignore[attr-defined]
    strategy = target.get_driver("HapbridgeStrategy")
    EmulatedPortPower.calls.clear()
    strategy.transition("ready")  # off (port off, board gone) → flashed (on, back, flash) → calibrated → ready
    assert strategy.status.name == "ready"
    assert EmulatedPortPower.calls == ["off", "on"]
    assert strategy.flash_record is not None and strategy.flash_record.get("ok") is True
    assert strategy.hapbridge.board.actuator in strategy.board_info["calibrations"]
    strategy.transition("off")
    assert EmulatedPortPower.calls == ["off", "on", "off"]
    assert not strategy.hapbridge.board.avail  # the strategy waited for the board to leave
    target.get_driver("EmulatedPortPower").on()
    target.await_resources([strategy.hapbridge.board], timeout=10.0)
