"""hapbridge on labgrid: resources (a bridge board by USB port, an FT232H, their network
variants), the exporter's additions, a driver running hapbridge's steps through
labgrid's remote execution, a strategy, and a pytest helper for measured figures.

Importing the package registers its resources, driver and strategy with labgrid's
target factory: name it under ``imports:`` in an environment file.
"""

from .driver import BoardUnavailable, HapbridgeDriver, RunResult, StepTimedOut
from .errors import (BoardLocked, CommandFailed, FlashError, FlashInterrupted, HapbridgeError,
                     HapbridgeNotFound, ImageRefused, Interrupted, NoBootloader, PlayedLate, PlayStopped,
                     RemoteExecutionFailed, RunErrored, RunFailed, TracesDiffer, UsageError, VerifyFailed)
from .identity import BoardIdentity
from .resources import (HapbridgeBoard, HapbridgeFT232H, HapbridgeResourceError, NetworkHapbridgeBoard,
                        NetworkHapbridgeFT232H)
from .strategy import HapbridgeStrategy, Status

__all__ = [
    "BoardIdentity", "BoardLocked", "BoardUnavailable", "CommandFailed", "FlashError", "FlashInterrupted",
    "HapbridgeBoard", "HapbridgeDriver", "HapbridgeError", "HapbridgeFT232H", "HapbridgeNotFound",
    "HapbridgeResourceError", "HapbridgeStrategy", "ImageRefused", "Interrupted", "NetworkHapbridgeBoard",
    "NetworkHapbridgeFT232H", "NoBootloader", "PlayStopped", "PlayedLate", "RemoteExecutionFailed",
    "RunErrored", "RunFailed", "RunResult", "Status", "StepTimedOut", "TracesDiffer", "UsageError", "VerifyFailed",
]
