"""hapbridge's resources in labgrid's own exporter, without a fork of labgrid.

labgrid's exporter has no plugin hook (labgrid issue #1205): what it can export is the
dict ``labgrid.remote.exporter.exports``, class name → export class. ``main`` adds
hapbridge's two classes to it and runs labgrid's ``main`` unchanged, so
``hapbridge-labgrid-exporter`` takes exactly ``labgrid-exporter``'s arguments.

labgrid's ``USBGenericExport`` builds its local resource by looking the class name up in
``labgrid.resource.udev``, where hapbridge's classes are not: these exports build
theirs from ``hapbridge_labgrid.resources`` instead, and publish the extra properties
a client needs (what the port shows now, the serial, the hapbridge executable there).
"""

from __future__ import annotations

from typing import Any

import attr
from labgrid.remote import exporter as labgrid_exporter

from .resources import HapbridgeBoard, HapbridgeFT232H


@attr.s(eq=False)
class HapbridgeBoardExport(labgrid_exporter.USBGenericExport):  # type: ignore[misc]
    """Exports a ``HapbridgeBoard`` as ``NetworkHapbridgeBoard``."""

    def __attrs_post_init__(self) -> None:
        # ResourceExport's, not USBGenericExport's (which would look the class up in
        # labgrid.resource.udev).
        labgrid_exporter.ResourceExport.__attrs_post_init__(self)
        self.data["cls"] = f"Network{self.cls}"
        self.local = HapbridgeBoard(target=None, name=None, **self.local_params)

    def _get_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super()._get_params()
        identity = self.local.identity
        params.update({
            "identity": None if identity is None else identity.value,
            "serial": self.local.serial,
            "id_path": self.local.id_path,
            "hapbridge": self.local.hapbridge,
            "actuator": self.local.actuator,
            "accelerometer_axis": self.local.accelerometer_axis,
        })
        return params


@attr.s(eq=False)
class HapbridgeFT232HExport(labgrid_exporter.USBGenericExport):  # type: ignore[misc]
    """Exports a ``HapbridgeFT232H`` as ``NetworkHapbridgeFT232H``."""

    def __attrs_post_init__(self) -> None:
        labgrid_exporter.ResourceExport.__attrs_post_init__(self)
        self.data["cls"] = f"Network{self.cls}"
        self.local = HapbridgeFT232H(target=None, name=None, **self.local_params)

    def _get_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super()._get_params()
        params.update({
            "serial": self.local.serial,
            "hapbridge": self.local.hapbridge,
            "actuator": self.local.actuator,
        })
        return params


EXPORTS: dict[str, type] = {
    "HapbridgeBoard": HapbridgeBoardExport,
    "HapbridgeFT232H": HapbridgeFT232HExport,
}


def register() -> None:
    """Add hapbridge's export classes to labgrid's exporter (idempotent)."""
    labgrid_exporter.exports.update(EXPORTS)


def main() -> None:
    """``hapbridge-labgrid-exporter``: labgrid's exporter with hapbridge's exports."""
    register()
    labgrid_exporter.main()


if __name__ == "__main__":
    main()
