"""``HapbridgeStrategy``: off → flashed → calibrated → ready, as labgrid's
``ShellStrategy`` walks a target through its states.

With a power driver on the target (labgrid's ``USBPowerDriver`` over the place's
``USBPowerPort``: the hub port the board hangs on), ``off`` switches the port off and
waits for the board to leave, and ``flashed`` switches it on and waits for the board on
its port before flashing. Without one, ``off`` only takes the driver down: nothing here
can cut a board's power.
"""

from __future__ import annotations

import enum
from typing import Any

import attr
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy.common import Strategy, StrategyError, never_retry


class Status(enum.Enum):
    unknown = 0
    off = 1
    flashed = 2
    calibrated = 3
    ready = 4


@target_factory.reg_driver
@attr.s(eq=False)
class HapbridgeStrategy(Strategy):  # type: ignore[misc]
    """Args:
        image: the firmware image to flash (a local path); None: the firmware the
            board host's hapbridge carries.
        actuator: the profile to calibrate with; None: the resource's.
        power_wait: seconds to wait for the board to leave or come back on a power switch.
    """

    bindings = {
        "hapbridge": "HapbridgeDriver",
        "power": {"PowerProtocol", None},
    }

    status = attr.ib(default=Status.unknown)
    image = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    actuator = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    power_wait = attr.ib(default=10.0, converter=float)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.flash_record: dict[str, Any] | None = None
        self.board_info: dict[str, Any] | None = None

    @never_retry
    @step(args=["status"])
    def transition(self, status: Status | str, *, step: Any) -> None:
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.unknown:
            raise StrategyError(f"can not transition to {status}")
        if status == self.status:
            step.skip("nothing to do")
            return
        if status == Status.off:
            self.target.deactivate(self.hapbridge)
            if self.power is not None:
                self.target.activate(self.power)
                self.power.off()
                board = self.hapbridge.board
                self.target.await_resources([board], timeout=self.power_wait, avail=False)
        elif status == Status.flashed:
            self.transition(Status.off)
            if self.power is not None:
                self.power.on()
            self.target.activate(self.hapbridge)
            self.hapbridge.ensure_available(self.power_wait)
            self.flash_record = self.hapbridge.flash(self.image)
        elif status == Status.calibrated:
            if self.status not in (Status.flashed, Status.ready):
                self.transition(Status.flashed)
            # labgrid deactivates a driver whose resource went away (a board that was
            # briefly off its port); activation is idempotent.
            self.target.activate(self.hapbridge)
            self.hapbridge.calibrate(self.actuator)
        elif status == Status.ready:
            if self.status != Status.calibrated:
                self.transition(Status.calibrated)
            self.target.activate(self.hapbridge)
            self.board_info = self.hapbridge.info()
        else:
            raise StrategyError(f"no transition found from {self.status} to {status}")
        self.status = status

    @never_retry
    @step(args=["status"])
    def force(self, status: Status | str, *, step: Any) -> None:
        """Take the board as being in ``status`` without doing anything to it."""
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.unknown:
            raise StrategyError(f"can not force state {status}")
        if status != Status.off:
            self.target.activate(self.hapbridge)
        self.status = status
