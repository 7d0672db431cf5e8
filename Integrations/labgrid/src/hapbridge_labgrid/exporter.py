"""hapbridge's resources in labgrid's own exporter, without a fork of labgrid.

labgrid's exporter has no plugin hook (labgrid issue #1205): what it can export is the
dict ``labgrid.remote.exporter.exports``, class name → export class. ``main`` adds
hapbridge's two classes to it and runs labgrid's ``main`` unchanged, so
``hapbridge-labgrid-exporter`` takes exactly ``labgrid-exporter``'s arguments. A
hapbridge resource its configuration gets wrong ends it with one line naming the
resource, its parameters and the rule, and status 2.

labgrid's ``USBGenericExport`` builds its local resource by looking the class name up in
``labgrid.resource.udev``, where hapbridge's classes are not: these exports build
theirs from ``hapbridge_labgrid.resources`` instead, and publish the extra properties
a client needs (what the port shows now, the serial, the hapbridge executable there).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import attr
from labgrid.remote import exporter as labgrid_exporter

from .resources import HapbridgeBoard, HapbridgeFT232H


class HapbridgeConfigError(Exception):
    """A hapbridge resource in the exporter's configuration breaks a rule."""


def _local(cls: type, name: str, params: dict[str, Any]) -> Any:
    try:
        return cls(target=None, name=None, **params)
    except (ValueError, TypeError) as e:
        # attrs' validators raise ValueError/TypeError whose first argument is the sentence.
        said = e.args[0] if e.args and isinstance(e.args[0], str) else str(e)
        shown = json.dumps(params, default=str)
        raise HapbridgeConfigError(f"{name} {shown}: {said}") from e


@attr.s(eq=False)
class HapbridgeBoardExport(labgrid_exporter.USBGenericExport):  # type: ignore[misc]
    """Exports a ``HapbridgeBoard`` as ``NetworkHapbridgeBoard``."""

    def __attrs_post_init__(self) -> None:
        # ResourceExport's, not USBGenericExport's (which would look the class up in
        # labgrid.resource.udev).
        labgrid_exporter.ResourceExport.__attrs_post_init__(self)
        self.data["cls"] = f"Network{self.cls}"
        self.local = _local(HapbridgeBoard, "HapbridgeBoard", self.local_params)

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
        self.local = _local(HapbridgeFT232H, "HapbridgeFT232H", self.local_params)

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
    try:
        labgrid_exporter.main()
    except HapbridgeConfigError as e:
        # labgrid's exporter has printed "resource config file: PATH" first.
        print(f"Error: the exporter's resource configuration: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
