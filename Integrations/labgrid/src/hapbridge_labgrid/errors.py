"""hapbridge's exit statuses as typed exceptions.

The statuses are hapbridge's documented ones (README, "Exit codes";
``Sources/HapbridgeCLI/ExitStatus.swift``); a step raises the exception for the status
its command ended with, carrying the command, the host it ran on and what it said on
standard error, so a test report says what failed and where.
"""

from __future__ import annotations

import signal
from typing import Any, Final


class HapbridgeError(Exception):
    """A hapbridge command ended with a non-zero status."""

    status: int
    command: list[str]
    host: str
    stderr: str
    # The command's --json record when it printed one (flash prints it on a failure too).
    record: dict[str, Any] | None

    def __init__(self, status: int, command: list[str], host: str, stderr: str, meaning: str) -> None:
        self.record = None
        self.status = status
        self.command = list(command)
        self.host = host
        self.stderr = stderr
        last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "")
        said = f": {last.strip()}" if last else ""
        super().__init__(f"`{' '.join(command)}` on {host} exited {status} ({meaning}){said}")


class CommandFailed(HapbridgeError):
    """1: a failure while running (a device error, FAIL from calibrate/diagnose/rom, a file)."""


class UsageError(HapbridgeError):
    """2: the command line is wrong (or a bench file or script, for ``run``); nothing ran."""


class PlayStopped(HapbridgeError):
    """3: ``play``/``measure`` started the pattern and it stopped before its end."""


class PlayedLate(HapbridgeError):
    """4: ``play``/``measure`` played to the end, but not on time."""


class FlashError(HapbridgeError):
    """5–8: ``flash`` failed; the subclass says how, and what the board holds."""


class ImageRefused(FlashError):
    """5: the image was refused before anything was erased."""


class NoBootloader(FlashError):
    """6: no bootloader found, or it did not answer."""


class VerifyFailed(FlashError):
    """7: the read-back differs from the image; the board stays in its bootloader."""


class FlashInterrupted(FlashError):
    """8: the write was interrupted after the erase; the board stays in its bootloader."""


class RunErrored(HapbridgeError):
    """9: ``run``: a test ERRORed or the run was cut short."""


class BoardLocked(HapbridgeError):
    """10: ``run``: a board the bench names is locked by another run (the holder is named)."""


class RunFailed(HapbridgeError):
    """11: ``run``: a test FAILed and none ERRORed."""


class TracesDiffer(HapbridgeError):
    """12: ``diff``: the trace is outside a limit of its golden reference."""


class EmulationSetupFailed(HapbridgeError):
    """125: ``emulate``: the emulation could not be set up."""


class Interrupted(HapbridgeError):
    """128 + N: stopped by signal N (SIGINT, SIGTERM, SIGHUP; 148 SIGTSTP)."""


class RemoteExecutionFailed(HapbridgeError):
    """255: ssh could not reach the exporter's host (ssh's own status for its errors)."""


class HapbridgeNotFound(HapbridgeError):
    """126/127: hapbridge could not be run / was not found on the host."""


_BY_STATUS: Final[dict[int, tuple[type[HapbridgeError], str]]] = {
    1: (CommandFailed, "failure while running"),
    2: (UsageError, "usage error, nothing run"),
    3: (PlayStopped, "stopped before the pattern's end"),
    4: (PlayedLate, "played to the end but late"),
    5: (ImageRefused, "flash: image refused before anything was erased"),
    6: (NoBootloader, "flash: no bootloader found or it did not answer"),
    7: (VerifyFailed, "flash: read-back differs from the image"),
    8: (FlashInterrupted, "flash: write interrupted after the erase"),
    9: (RunErrored, "run: a test ERRORed or the run was cut short"),
    10: (BoardLocked, "run: a board is locked by another run"),
    11: (RunFailed, "run: a test FAILed"),
    12: (TracesDiffer, "diff: the trace is outside a limit of its golden reference"),
    125: (EmulationSetupFailed, "emulate: the emulation could not be set up"),
    126: (HapbridgeNotFound, "hapbridge could not be run"),
    127: (HapbridgeNotFound, "hapbridge not found"),
    255: (RemoteExecutionFailed, "ssh failed to reach the host"),
}


def error_for_status(status: int, command: list[str], host: str, stderr: str) -> HapbridgeError:
    """The exception for a command's non-zero exit status."""
    known = _BY_STATUS.get(status)
    if known is not None:
        cls, meaning = known
        return cls(status, command, host, stderr, meaning)
    if 128 < status < 128 + 65:
        try:
            name = signal.Signals(status - 128).name
        except ValueError:
            name = f"signal {status - 128}"
        return Interrupted(status, command, host, stderr, f"stopped by {name}")
    if status < 0:  # subprocess: killed by signal -status
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return Interrupted(128 - status, command, host, stderr, f"killed by {name}")
    return HapbridgeError(status, command, host, stderr, "an undocumented status")
