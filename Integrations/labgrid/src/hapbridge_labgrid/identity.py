"""The USB identities a hapbridge board or adapter shows on its port, and what each means.

A bridge board is three unrelated USB identities during ``hapbridge flash``: its
firmware, then its bootloader (Caterina or Atmel's DFU), then its firmware again. The
resource for a board is matched by its USB port and accepts any of these, so it stays
one labgrid resource through a flash; which one is on the port now is a property.

Sources of the numbers (this client's own table, read from the public documents, never
from the emulation that answers to it):

- ``1209:0001``: the pid.codes test PID the hapbridge firmware enumerates with
  (``Firmware/protocol/include/hapbridge/usb_identity.h``, ``HB_USB_VID``/``HB_USB_PID``).
- ``2341:0036`` / ``2341:0037``: the Arduino Leonardo's and Micro's Caterina bootloaders
  (Arduino AVR core ``boards.txt``: ``leonardo.vid.1=0x2341 leonardo.pid.1=0x0036``).
- ``1b4f:9205``: the SparkFun Pro Micro 5 V Caterina bootloader (SparkFun's
  ``boards.txt``); ``1b4f:9206`` and ``2341:8036`` the Pro Micro's and the Leonardo's
  sketches, which a board runs before it is first flashed.
- ``03eb:2ff4``: Atmel's factory DFU bootloader of the ATmega32U4 (Atmel doc7618,
  "USB DFU Bootloader Datasheet"); its interface reports class FE/01/00 (labgrid's
  ``DFUDevice`` wants FE/01/02, so it does not match it).
- ``0403:6014``: the FTDI FT232H (FTDI's FT232H datasheet, DS_FT232H, "Default
  Descriptors").

udev spells vendor and product IDs in lower-case hex (``ID_VENDOR_ID``), and labgrid
compares them case-sensitively (labgrid issue #1733): keep the keys lower case.
"""

from __future__ import annotations

import enum
from typing import Final


class BoardIdentity(enum.Enum):
    """What a hapbridge board's port shows now."""

    FIRMWARE = "firmware"
    CATERINA = "caterina"
    ATMEL_DFU = "atmel-dfu"
    SKETCH = "sketch"


BRIDGE_BOARD_IDENTITIES: Final[dict[tuple[str, str], BoardIdentity]] = {
    ("1209", "0001"): BoardIdentity.FIRMWARE,
    ("2341", "0036"): BoardIdentity.CATERINA,
    ("2341", "0037"): BoardIdentity.CATERINA,
    ("1b4f", "9205"): BoardIdentity.CATERINA,
    ("03eb", "2ff4"): BoardIdentity.ATMEL_DFU,
    ("2341", "8036"): BoardIdentity.SKETCH,
    ("1b4f", "9206"): BoardIdentity.SKETCH,
}

FT232H_IDENTITY: Final[tuple[str, str]] = ("0403", "6014")


def bridge_identity(vendor_id: str | None, model_id: str | None) -> BoardIdentity | None:
    """The identity a bridge board's port shows for udev's ``ID_VENDOR_ID`` and
    ``ID_MODEL_ID``, or None when the device there is no hapbridge board."""
    if vendor_id is None or model_id is None:
        return None
    return BRIDGE_BOARD_IDENTITIES.get((vendor_id.lower(), model_id.lower()))
