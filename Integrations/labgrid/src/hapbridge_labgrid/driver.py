"""``HapbridgeDriver``: hapbridge's bench steps on a labgrid target.

Each step runs the ``hapbridge`` executable on the host the board is plugged into: for
a network resource through labgrid's remote execution (the resource's
``command_prefix``, an ssh ControlMaster connection to the exporter's host), for a local
one in this process's host. Files go with labgrid's ``ManagedFile`` (rsync over the same
connection) and come back with its ssh manager (scp). A non-zero status raises the
typed exception of ``errors.py``.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import attr
from labgrid.driver.common import Driver
from labgrid.exceptions import NoResourceFoundError
from labgrid.factory import target_factory
from labgrid.resource.common import NetworkResource
from labgrid.step import step
from labgrid.util.managedfile import ManagedFile
from labgrid.util.ssh import sshmanager

from .errors import HapbridgeError, error_for_status
from .junit import JUnitReport, parse_junit


class BoardUnavailable(Exception):
    """The board's resource is not available: unplugged, re-enumerating for longer than
    the wait allows, or its exporter gone (the coordinator drops an exporter's
    resources when it disconnects)."""


class StepTimedOut(Exception):
    """A hapbridge command did not end within the step's timeout. It was stopped on the
    host it ran on: first SIGINT (hapbridge stops the actuator and exits 130), SIGKILL
    ``KILL_AFTER`` seconds later if it had not ended."""


# The remote command runs under coreutils `timeout --signal=INT --kill-after=KILL_AFTER`
# on the board's host, so it ends itself there even when the client or the ssh
# connection is gone. timeout(1)'s statuses: 124 "timed out" (the command got SIGINT and
# ended), 137 (128 + SIGKILL) "it did not end within --kill-after of the SIGINT".
KILL_AFTER = 5.0
TIMED_OUT_STATUSES = (124, 137)
# The local wait is longer than the remote timeout plus its kill-after, so normally the
# host ends the command first and reports 124/137; only if that fails (a hung host, a
# hung connection) does the local wait expire, and the driver then kills the remote
# process group itself.
LOCAL_GRACE = 5.0
# The wrapper's first line on standard error: its shell's pid, which is the process
# group of the command (sshd starts each session's command in a session of its own; a
# local step is started in a new session too).
_PGID_LINE = re.compile(r"hapbridge-labgrid: pgid (\d+)\n")


@attr.s(frozen=True)
class RunResult:
    """``hapbridge run``'s outcome: its status, its JSON record and its JUnit report."""

    status: int = attr.ib()
    record: dict[str, Any] = attr.ib()
    junit: JUnitReport = attr.ib()
    stdout: str = attr.ib()
    # The bench file and the script as hapbridge saw them on the board's host (the copies
    # labgrid's ManagedFile made there, or the local paths when the host shares them).
    bench_path: str = attr.ib(default="")
    suite_path: str = attr.ib(default="")


@target_factory.reg_driver
@attr.s(eq=False)
class HapbridgeDriver(Driver):  # type: ignore[misc]
    """Runs ``hapbridge`` against the bound board or FT232H.

    Args:
        wait_available: seconds a step waits for the resource to be available before it
            raises ``BoardUnavailable`` (a board re-enumerating after a flash is back
            within a few seconds).
        detect_nfs: passed to labgrid's ``ManagedFile``: when the local file's path
            exists on the board's host with the same inode, size and mtime (a shared
            file system), use it there instead of copying it (labgrid's default, True).
            False always copies the file to the host's
            ``/var/cache/labgrid/USER/SHA256/`` (the loopback farm does, since its
            "hosts" share this machine's file system).
    """

    bindings = {
        "board": {"HapbridgeBoard", "NetworkHapbridgeBoard", "HapbridgeFT232H", "NetworkHapbridgeFT232H"},
    }
    wait_available = attr.ib(default=10.0, converter=float)
    detect_nfs = attr.ib(default=True, validator=attr.validators.instance_of(bool))

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        # The last step's standard error, line by line, each with the time.monotonic()
        # it arrived here (ssh's latency included): when flash's "verify  done" came.
        self.last_stderr: list[tuple[float, str]] = []

    # -- plumbing -----------------------------------------------------------------

    @property
    def host(self) -> str:
        return str(getattr(self.board, "host", "localhost"))

    @property
    def is_remote(self) -> bool:
        return isinstance(self.board, NetworkResource)

    @property
    def address(self) -> str:
        address = self.board.address
        if address is None:
            raise BoardUnavailable(f"{self.board.name or type(self.board).__name__} on {self.host}: no device on its port")
        return str(address)

    def ensure_available(self, timeout: float | None = None) -> None:
        """Wait (bounded) for the board's resource to be available, else raise."""
        wait = self.wait_available if timeout is None else timeout
        name = self.board.name or "board"
        try:
            self.target.await_resources([self.board], timeout=wait)
        except NoResourceFoundError as e:
            raise BoardUnavailable(
                f"{name} on {self.host} is not available after {wait:g} s (unplugged, or its exporter is gone)") from e
        except KeyError as e:
            # labgrid 26: when an exporter disconnects, the coordinator deletes its resources
            # and the client session empties their entries; RemotePlaceManager.poll, which
            # polls every remote resource of the environment at once, then fails on the
            # first emptied one — whichever target asked. Judge this board by its own entry.
            entry = getattr(self.board, "_remote_entry", None)
            data = getattr(entry, "data", None)
            if not data:
                raise BoardUnavailable(
                    f"{name} on {self.host}: the coordinator no longer has this resource "
                    "(its exporter disconnected)") from e
            if not data.get("avail"):
                raise BoardUnavailable(f"{name} on {self.host} is not available") from e

    def _wrapped(self, args: list[str], timeout: float) -> list[str]:
        """The argv that runs ``hapbridge ARGS`` on the board's host under timeout(1)."""
        argv = [str(self.board.hapbridge), *args]
        # timeout(1) takes 0 as "no timeout" and refuses a negative one (status 125).
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"{args[0]}: timeout {timeout!r}: must be a positive number of seconds")
        script = (f'echo "hapbridge-labgrid: pgid $$" >&2; exec timeout --signal=INT '
                  f"--kill-after={KILL_AFTER:.3f} {timeout:.3f} {shlex.join(argv)}")
        if self.is_remote:
            return [*self.board.command_prefix, script]
        return ["sh", "-c", script]

    def _kill_group(self, pgid: int) -> None:
        """Ends a timed-out step's process group on the board's host: SIGINT (hapbridge
        stops the actuator and exits), then SIGKILL if any of it is still there after
        KILL_AFTER (polled, bounded)."""
        polls = int(KILL_AFTER / 0.1)
        if not self.is_remote:
            for sig in (signal.SIGINT, *([0] * polls), signal.SIGKILL):
                try:
                    os.killpg(pgid, sig)
                except ProcessLookupError:
                    return
                if sig == 0:
                    time.sleep(0.1)
            return
        script = (f"kill -INT -- -{pgid} 2>/dev/null || exit 0; i=0; "
                  f"while kill -0 -- -{pgid} 2>/dev/null && [ $i -lt {polls} ]; do sleep 0.1; i=$((i+1)); done; "
                  f"kill -KILL -- -{pgid} 2>/dev/null; exit 0")
        subprocess.run([*self.board.command_prefix, script], stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=KILL_AFTER + 30, check=False)

    def _hapbridge(self, args: list[str], *, timeout: float, check: bool = True) -> subprocess.CompletedProcess[str]:
        wrapped = self._wrapped(args, timeout)
        self.ensure_available()
        command = [str(self.board.hapbridge), *args]
        proc = subprocess.Popen(wrapped, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        stdout: list[str] = []
        stderr: list[tuple[float, str]] = []
        self.last_stderr = stderr
        readers = [threading.Thread(target=lambda: stdout.append(proc.stdout.read()), daemon=True),  # type: ignore[union-attr]
                   threading.Thread(target=lambda: stderr.extend((time.monotonic(), line) for line in proc.stderr),  # type: ignore[union-attr]
                                    daemon=True)]
        for reader in readers:
            reader.start()
        try:
            proc.wait(timeout=timeout + KILL_AFTER + LOCAL_GRACE)
        except subprocess.TimeoutExpired:
            self._abandon(proc, stderr)
            self._drain(proc, readers)
            raise StepTimedOut(f"`{' '.join(command)}` on {self.host} did not end within {timeout:g} s "
                               "(nor did the host's timeout end it); its process group there was sent "
                               "SIGINT, then SIGKILL") from None
        self._drain(proc, readers)
        if stderr and _PGID_LINE.match(stderr[0][1]):
            del stderr[0]
        done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(stdout),
                                           "".join(line for _, line in stderr))
        if done.returncode in TIMED_OUT_STATUSES:
            how = "SIGINT" if done.returncode == 124 else f"SIGINT, then SIGKILL {KILL_AFTER:g} s later"
            raise StepTimedOut(f"`{' '.join(command)}` on {self.host} did not end within {timeout:g} s; "
                               f"stopped there ({how})")
        if check and done.returncode != 0:
            raise error_for_status(done.returncode, command, self.host, done.stderr)
        return done

    @staticmethod
    def _drain(proc: subprocess.Popen[str], readers: list[threading.Thread]) -> None:
        # With an ssh ControlMaster the master holds our pipes until the remote session
        # ends: wait for the readers (bounded), then drop the pipes.
        for reader in readers:
            reader.join(timeout=KILL_AFTER + LOCAL_GRACE)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None and not any(r.is_alive() for r in readers):
                pipe.close()

    def _abandon(self, proc: subprocess.Popen[str], stderr: list[tuple[float, str]]) -> None:
        """The local wait expired: end the command on the host, then the local client."""
        if not self.is_remote:
            self._kill_group(proc.pid)  # started in a session of its own: its pid is its group
        else:
            found = _PGID_LINE.match(stderr[0][1]) if stderr else None
            proc.kill()  # the local ssh client; the remote command does not notice it
            if found is not None:
                self._kill_group(int(found.group(1)))
        proc.kill()
        proc.wait()

    def _json(self, done: subprocess.CompletedProcess[str], what: str) -> dict[str, Any]:
        try:
            value = json.loads(done.stdout)
        except json.JSONDecodeError as e:
            raise HapbridgeError(done.returncode, [what], self.host, done.stderr,
                                 f"its --json output is not JSON: {e}") from e
        if not isinstance(value, dict):
            raise HapbridgeError(done.returncode, [what], self.host, done.stderr, "its --json output is not an object")
        return value

    def _put(self, local: str | os.PathLike[str]) -> str:
        """The path on the board's host of a copy of a local file."""
        if not self.is_remote:
            return os.fspath(local)
        managed = ManagedFile(os.fspath(local), self.board, detect_nfs=self.detect_nfs)
        managed.sync_to_resource()
        path = str(managed.get_remote_path())
        self.logger.debug("%s is %s on %s", os.fspath(local), path, self.host)
        return path

    def _remote_shell(self, script: str, *, timeout: float = 30.0) -> str:
        argv = [*self.board.command_prefix, script] if self.is_remote else ["sh", "-c", script]
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout, check=False)
        if done.returncode != 0:
            raise error_for_status(done.returncode, ["sh", "-c", script], self.host, done.stderr)
        return done.stdout

    def _get(self, remote: str, local: Path) -> None:
        if self.is_remote:
            sshmanager.get_file(self.board.host, remote, os.fspath(local))
        else:
            local.write_bytes(Path(remote).read_bytes())

    # -- steps --------------------------------------------------------------------

    @Driver.check_active
    @step()
    def info(self) -> dict[str, Any]:
        """``hapbridge info --json``: identity, capabilities, registers, calibrations."""
        return self._json(self._hapbridge(["info", "--device", self.address, "--json"], timeout=60), "info")

    @Driver.check_active
    @step(args=["image"])
    def flash(self, image: str | os.PathLike[str] | None = None, *, serial: str | None = None,
              timeout: float = 240.0) -> dict[str, Any]:
        """``hapbridge flash --json``: ``image`` (a local file, copied to the board's host)
        or the firmware that host's hapbridge carries. The board re-enumerates through
        its bootloader on the same port, so the resource stays bound. Returns the record."""
        args = ["flash"]
        if image is not None:
            args.append(self._put(image))
        args += ["--device", self.address, "--json"]
        if serial is not None:
            args += ["--serial", serial]
        done = self._hapbridge(args, timeout=timeout, check=False)
        if done.returncode != 0:
            error = error_for_status(done.returncode, [str(self.board.hapbridge), *args], self.host, done.stderr)
            # flash --json prints its record on a failure too ("error": "bad-image"…).
            try:
                record = json.loads(done.stdout)
            except json.JSONDecodeError:
                record = None
            error.record = record if isinstance(record, dict) else None
            raise error
        return self._json(done, "flash")

    @Driver.check_active
    @step(args=["actuator"])
    def calibrate(self, actuator: str | None = None, *, save: bool = True, timeout: float = 120.0) -> str:
        """``hapbridge calibrate``: the chip's auto-calibration, kept on the board's host
        under the board's serial (FAIL raises ``CommandFailed``). Returns its report."""
        args = ["calibrate", "--device", self.address, "--actuator", self._actuator(actuator)]
        if not save:
            args.append("--no-save")
        return self._hapbridge(args, timeout=timeout).stdout

    @Driver.check_active
    @step(args=["pattern"])
    def measure(self, pattern: str, *, actuator: str | None = None, timeout: float = 120.0) -> dict[str, Any]:
        """``hapbridge measure PATTERN --json`` (a built-in pattern's name or a path on
        the board's host): peak/RMS g, rise, lag, stop time, from the board's LIS3DH when
        it has one (along the resource's ``accelerometer_axis``)."""
        args = ["measure", pattern, "--device", self.address, "--actuator", self._actuator(actuator), "--json"]
        axis = getattr(self.board, "accelerometer_axis", None)
        if axis:
            args += ["--axis", str(axis)]
        return self._json(self._hapbridge(args, timeout=timeout), "measure")

    @Driver.check_active
    @step()
    def sweep(self, *, actuator: str | None = None, start_hz: float | None = None, stop_hz: float | None = None,
              timeout: float = 300.0) -> dict[str, Any]:
        """``hapbridge sweep --json``: an LRA's open-loop response (f0, −3 dB points, Q)."""
        args = ["sweep", "--device", self.address, "--actuator", self._actuator(actuator), "--json"]
        if start_hz is not None:
            args += ["--from", f"{start_hz:g}"]
        if stop_hz is not None:
            args += ["--to", f"{stop_hz:g}"]
        return self._json(self._hapbridge(args, timeout=timeout), "sweep")

    def bench_yaml(self, *, features: list[str] | None = None) -> str:
        """A hapbridge bench file (``Examples/hil/bench.schema.json``) for this board,
        generated from the resource: its address, actuator and accelerometer."""
        actuator = self._actuator(None)
        name = self.target.name if self.target is not None else "labgrid"
        lines = [
            "# Generated by hapbridge-labgrid from the labgrid resource.",
            f"bench: {json.dumps('labgrid-' + name)}",
            "devices:",
            "  - name: dut",
            f"    address: {json.dumps(self.address)}",
            f"    actuator: {json.dumps(actuator)}",
        ]
        axis = getattr(self.board, "accelerometer_axis", None)
        if axis:
            lines.append(f"    accelerometer: {{axis: {axis}}}")
        lines.append(f"features: {json.dumps(features if features is not None else ['flash'])}")
        return "\n".join(lines) + "\n"

    @Driver.check_active
    @step(args=["suite"])
    def run(self, suite: str | os.PathLike[str], *, features: list[str] | None = None,
            timeout: float = 600.0, check: bool = True) -> RunResult:
        """``hapbridge run`` of a local test script on this board, with a bench file
        generated from the resource; the JSON record and the JUnit report are brought
        back and parsed. With ``check`` (default) a non-zero status raises its exception
        (``RunFailed``, ``RunErrored``, ``BoardLocked``…) after the reports are read."""
        with tempfile.TemporaryDirectory(prefix="hapbridge-labgrid-") as scratch:
            local = Path(scratch)
            bench = local / f"bench-{self.target.name if self.target is not None else 'board'}.yaml"
            bench.write_text(self.bench_yaml(features=features), encoding="utf-8")
            remote_bench = self._put(bench)
            remote_suite = self._put(suite)
            out = self._remote_shell("mktemp -d").strip() if self.is_remote else scratch
            try:
                args = ["run", remote_bench, remote_suite, "--json", f"{out}/run.json", "--junit", f"{out}/run.xml"]
                done = self._hapbridge(args, timeout=timeout, check=False)
                record: dict[str, Any] = {}
                junit = JUnitReport(tests=0, failures=0, errors=0, skipped=0, cases=[])
                if done.returncode in (0, 9, 11):
                    # A run cut short (9) may have written nothing: then there is nothing to read.
                    try:
                        self._get(f"{out}/run.json", local / "run.json")
                        self._get(f"{out}/run.xml", local / "run.xml")
                    except (subprocess.CalledProcessError, OSError):
                        if done.returncode == 0:
                            raise
                    if (local / "run.json").exists():
                        loaded = json.loads((local / "run.json").read_text(encoding="utf-8"))
                        record = loaded if isinstance(loaded, dict) else {}
                    if (local / "run.xml").exists():
                        junit = parse_junit(local / "run.xml")
            finally:
                if self.is_remote:
                    self._remote_shell(f"rm -rf -- {shlex.quote(out)}")
        if check and done.returncode != 0:
            raise error_for_status(done.returncode, [str(self.board.hapbridge), *args], self.host, done.stderr)
        return RunResult(status=done.returncode, record=record, junit=junit, stdout=done.stdout,
                         bench_path=remote_bench, suite_path=remote_suite)

    def _actuator(self, actuator: str | None) -> str:
        chosen = actuator or getattr(self.board, "actuator", None)
        if not chosen:
            raise ValueError(
                f"{self.board.name or 'board'}: no actuator: give one to the step or set "
                "`actuator` on the resource in the exporter's configuration")
        return str(chosen)
