"""labgrid resources for hapbridge hardware: a bridge board matched by its USB port, an
FT232H adapter, and the network variants a client gets from an exporter.

A bridge board is matched by where it is plugged in (udev's ``ID_PATH``, or the port's
sysfs name), never by its USB identity or serial: during ``hapbridge flash`` the port
shows the firmware (1209:0001), then a bootloader (Caterina or Atmel DFU), then the
firmware again, and the resource must stay the same labgrid resource throughout. Which
identity the port shows now is ``identity`` (see ``identity.py``).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import attr
from labgrid.factory import target_factory
from labgrid.resource.remote import RemoteUSBResource
from labgrid.resource.udev import USBResource

from .identity import FT232H_IDENTITY, BoardIdentity, bridge_identity

# udev properties that change while a board walks firmware → bootloader → firmware: a
# match on any of them would lose the board in the middle of a flash.
_IDENTITY_KEYS = ("ID_VENDOR_ID", "ID_MODEL_ID", "ID_SERIAL", "ID_SERIAL_SHORT", "PRODUCT",
                  "ID_VENDOR", "ID_MODEL", "ID_REVISION")
# What says where a device is plugged in.
_PORT_KEYS = ("ID_PATH", "ID_PATH_TAG", "sys_name", "sys_path", "DEVPATH")


# How long a client waits for a network resource to come back (as labgrid's other remote
# USB resources): a board re-enumerating, through a flash, is back within this.
_REENUMERATION_SECONDS = 10.0


class HapbridgeResourceError(ValueError):
    """A hapbridge resource's configuration breaks a rule; the message names the
    resource class, the field and the rule."""


def default_hapbridge() -> str:
    """The hapbridge executable on this host: ``$HAPBRIDGE``, else ``hapbridge`` on PATH,
    else the bare name (so that an exporter without it says so when a step runs it)."""
    explicit = os.environ.get("HAPBRIDGE")
    if explicit:
        return explicit
    return shutil.which("hapbridge") or "hapbridge"


def _check_port_match(cls_name: str, match: dict[str, Any]) -> None:
    for key in match:
        bare = key.lstrip("@")
        if bare in _IDENTITY_KEYS:
            raise HapbridgeResourceError(
                f"{cls_name}: match: {key}: a hapbridge board is matched by its USB port "
                f"(ID_PATH or sys_name), not by {bare}, which changes when the board enters "
                "its bootloader during a flash")
    if not any(key.lstrip("@") in _PORT_KEYS for key in match):
        raise HapbridgeResourceError(
            f"{cls_name}: match: needs the board's USB port, e.g. "
            "{ID_PATH: pci-0000:00:14.0-usb-0:1} or {sys_name: 1-1} "
            "(`udevadm info /dev/bus/usb/BBB/DDD` shows ID_PATH)")


@target_factory.reg_resource
@attr.s(eq=False)
class HapbridgeBoard(USBResource):
    """A hapbridge bridge board on the USB port ``match`` names, whatever it runs now.

    Args:
        match: udev properties naming the port (``ID_PATH``, or ``sys_name`` such as ``1-1``).
        hapbridge: the hapbridge executable on this host (default: ``$HAPBRIDGE``, then PATH).
        actuator: the actuator profile wired to the board's DRV2605 (``pmd-c10-100``).
        accelerometer_axis: the LIS3DH axis the actuator moves along, when one is fitted.
    """

    hapbridge = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    actuator = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    accelerometer_axis = attr.ib(default=None, validator=attr.validators.optional(attr.validators.in_(["x", "y", "z"])))

    def __attrs_post_init__(self) -> None:
        _check_port_match(type(self).__name__, self.match)
        # The device itself, not its interfaces (or a Caterina's tty), on that port.
        self.match.setdefault("DEVTYPE", "usb_device")
        if self.hapbridge is None:
            self.hapbridge = default_hapbridge()
        super().__attrs_post_init__()

    def filter_match(self, device: Any) -> bool:
        props = device.properties
        if bridge_identity(props.get("ID_VENDOR_ID"), props.get("ID_MODEL_ID")) is None:
            return False
        return bool(super().filter_match(device))

    @property
    def identity(self) -> BoardIdentity | None:
        """What the port shows now: the firmware, a bootloader, a sketch; None when empty."""
        device = self._get_usb_device()
        if device is None:
            return None
        return bridge_identity(device.properties.get("ID_VENDOR_ID"), device.properties.get("ID_MODEL_ID"))

    @property
    def serial(self) -> str | None:
        device = self._get_usb_device()
        return None if device is None else device.properties.get("ID_SERIAL_SHORT")

    @property
    def id_path(self) -> str | None:
        device = self._get_usb_device()
        return None if device is None else device.properties.get("ID_PATH")

    @property
    def address(self) -> str | None:
        """hapbridge's ``--device`` address: the port, ``usb:BUS-PORT``, which a board keeps
        across re-enumeration (README, "Devices and addresses")."""
        return None if self.path is None else f"usb:{self.path}"


@target_factory.reg_resource
@attr.s(eq=False)
class HapbridgeFT232H(USBResource):
    """An FTDI FT232H (0403:6014) with a DRV2605L on its I2C pins; ``match`` as for any
    labgrid USB resource (its serial, ``ID_SERIAL_SHORT``, or its port)."""

    hapbridge = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    actuator = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))

    def __attrs_post_init__(self) -> None:
        self.match.setdefault("DEVTYPE", "usb_device")
        if self.hapbridge is None:
            self.hapbridge = default_hapbridge()
        super().__attrs_post_init__()

    def filter_match(self, device: Any) -> bool:
        props = device.properties
        vendor, model = props.get("ID_VENDOR_ID"), props.get("ID_MODEL_ID")
        if vendor is None or model is None or (vendor.lower(), model.lower()) != FT232H_IDENTITY:
            return False
        return bool(super().filter_match(device))

    @property
    def serial(self) -> str | None:
        device = self._get_usb_device()
        return None if device is None else device.properties.get("ID_SERIAL_SHORT")

    @property
    def address(self) -> str | None:
        """hapbridge's ``--device`` address: ``ftdi:SERIAL`` (README, "Devices and addresses")."""
        serial = self.serial
        if self.device is None:
            return None
        return "ftdi" if not serial else f"ftdi:{serial}"


def _optional_str() -> Any:
    return attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))


@target_factory.reg_resource
@attr.s(eq=False)
class NetworkHapbridgeBoard(RemoteUSBResource):
    """A ``HapbridgeBoard`` on an exporter's host, as a client sees it: the exporter's
    ``host`` (reached over ssh for remote execution) and what the board shows now."""

    identity = _optional_str()
    serial = _optional_str()
    id_path = _optional_str()
    hapbridge = attr.ib(default="hapbridge", validator=attr.validators.instance_of(str))
    actuator = _optional_str()
    accelerometer_axis = _optional_str()

    def __attrs_post_init__(self) -> None:
        self.timeout = _REENUMERATION_SECONDS
        super().__attrs_post_init__()

    @property
    def address(self) -> str | None:
        return None if self.path is None else f"usb:{self.path}"


@target_factory.reg_resource
@attr.s(eq=False)
class NetworkHapbridgeFT232H(RemoteUSBResource):
    """A ``HapbridgeFT232H`` on an exporter's host, as a client sees it."""

    serial = _optional_str()
    hapbridge = attr.ib(default="hapbridge", validator=attr.validators.instance_of(str))
    actuator = _optional_str()

    def __attrs_post_init__(self) -> None:
        self.timeout = _REENUMERATION_SECONDS
        super().__attrs_post_init__()

    @property
    def address(self) -> str | None:
        if self.path is None:
            return None
        return "ftdi" if not self.serial else f"ftdi:{self.serial}"
