"""The package's pieces that need no farm: identities, the resource's configuration
rules, exit statuses, the figure verdict, the JUnit reader, the exporter's registration."""

from __future__ import annotations

import re
from pathlib import Path

import attr
import pytest

from hapbridge_labgrid import errors
from hapbridge_labgrid.identity import BoardIdentity, bridge_identity
from hapbridge_labgrid.junit import JUnitError, parse_junit
from hapbridge_labgrid.pytest_figures import figure_verdict
from hapbridge_labgrid.resources import HapbridgeResourceError, _check_port_match


def test_every_identity_a_board_shows_during_a_flash_is_the_same_board() -> None:
    assert bridge_identity("1209", "0001") is BoardIdentity.FIRMWARE
    assert bridge_identity("2341", "0036") is BoardIdentity.CATERINA
    assert bridge_identity("1b4f", "9205") is BoardIdentity.CATERINA
    assert bridge_identity("03EB", "2FF4") is BoardIdentity.ATMEL_DFU
    assert bridge_identity("0403", "6014") is None
    assert bridge_identity(None, "0001") is None


def test_a_board_matched_by_its_serial_or_vid_is_refused_naming_the_field() -> None:
    with pytest.raises(HapbridgeResourceError, match=r"HapbridgeBoard: match: ID_SERIAL_SHORT: .*port"):
        _check_port_match("HapbridgeBoard", {"ID_PATH": "pci-0000:00:14.0-usb-0:1", "ID_SERIAL_SHORT": "0001"})
    with pytest.raises(HapbridgeResourceError, match=r"match: @ID_VENDOR_ID"):
        _check_port_match("HapbridgeBoard", {"@ID_VENDOR_ID": "1209", "sys_name": "1-1"})
    with pytest.raises(HapbridgeResourceError, match=r"needs the board's USB port"):
        _check_port_match("HapbridgeBoard", {"SUBSYSTEM": "usb"})
    _check_port_match("HapbridgeBoard", {"ID_PATH": "pci-0000:00:14.0-usb-0:1"})
    _check_port_match("HapbridgeBoard", {"sys_name": "1-2"})


@pytest.mark.parametrize("status, cls", [
    (1, errors.CommandFailed), (2, errors.UsageError), (3, errors.PlayStopped), (4, errors.PlayedLate),
    (5, errors.ImageRefused), (6, errors.NoBootloader), (7, errors.VerifyFailed), (8, errors.FlashInterrupted),
    (9, errors.RunErrored), (10, errors.BoardLocked), (11, errors.RunFailed), (12, errors.TracesDiffer), (130, errors.Interrupted),
    (143, errors.Interrupted), (255, errors.RemoteExecutionFailed), (127, errors.HapbridgeNotFound),
])
def test_each_documented_exit_status_raises_its_own_exception(status: int, cls: type) -> None:
    error = errors.error_for_status(status, ["hapbridge", "flash"], "bench-a", "note\nError: no bootloader\n")
    assert type(error) is cls
    assert error.status == status and error.host == "bench-a"
    assert "on bench-a" in str(error) and f"exited {status}" in str(error)
    assert str(error).endswith("Error: no bootloader")


def test_every_status_in_the_readmes_exit_codes_table_has_its_own_exception() -> None:
    # hapbridge's statuses are defined once, in its ExitStatus and the README's table that
    # documents them: a status added there and not here would reach a caller as "undocumented".
    readme = Path(__file__).resolve().parents[3] / "README.md"
    table = readme.read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n\n", 2)[1]
    statuses = {int(n) for row in table.splitlines() if row.startswith("| ")
                for n in re.findall(r"\d+", row.split("|")[1])}
    assert {1, 2, 12, 130, 148} <= statuses, statuses
    for status in sorted(statuses - {0}):
        error = errors.error_for_status(status, ["hapbridge"], "h", "")
        assert type(error) is not errors.HapbridgeError and "undocumented" not in str(error), status


def test_flash_statuses_share_a_base_class_for_callers_that_retry_any_flash_failure() -> None:
    for status in (5, 6, 7, 8):
        assert isinstance(errors.error_for_status(status, ["hapbridge"], "h", ""), errors.FlashError)
    assert "SIGINT" in str(errors.error_for_status(130, ["hapbridge"], "h", ""))


def test_a_figure_is_judged_against_either_bound_and_nan_fails() -> None:
    assert figure_verdict(1.0, 0.5, 2.0) == "PASS"
    assert figure_verdict(0.4, 0.5, None) == "FAIL"
    assert figure_verdict(2.1, None, 2.0) == "FAIL"
    assert figure_verdict(float("nan"), 0.0, 1.0) == "FAIL"
    assert figure_verdict(3.0, None, None) == "UNCHECKED"


def test_hapbridge_runs_junit_is_read_case_by_case(tmp_path: Path) -> None:
    xml = tmp_path / "run.xml"
    xml.write_text('<testsuites><testsuite name="s"><testcase name="a" classname="s" time="0.5"/>'
                   '<testcase name="b" classname="s" time="1"><failure message="f0 out of limits"/></testcase>'
                   '<testcase name="c" classname="s"><error message="board vanished"/></testcase>'
                   '<testcase name="d" classname="s"><skipped message="needs flash"/></testcase>'
                   '</testsuite></testsuites>')
    report = parse_junit(xml)
    assert (report.tests, report.failures, report.errors, report.skipped) == (4, 1, 1, 1)
    assert report.cases[1].message == "f0 out of limits"


def test_a_junit_file_that_is_not_junit_is_refused_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "run.xml"
    bad.write_text("<html/>")
    with pytest.raises(JUnitError, match=r"run.xml: root element <html>"):
        parse_junit(bad)
    bad.write_text("<testsuites><testcase time='soon'/></testsuites>")
    with pytest.raises(JUnitError, match=r"time 'soon' is not a number"):
        parse_junit(bad)


def test_the_exporter_entry_point_adds_hapbridges_exports_to_labgrids_registry() -> None:
    from labgrid.remote import exporter as labgrid_exporter

    from hapbridge_labgrid.exporter import HapbridgeBoardExport, HapbridgeFT232HExport, register
    register()
    assert labgrid_exporter.exports["HapbridgeBoard"] is HapbridgeBoardExport
    assert labgrid_exporter.exports["HapbridgeFT232H"] is HapbridgeFT232HExport
    assert labgrid_exporter.exports["USBSerialPort"] is labgrid_exporter.SerialPortExport  # labgrid's own stay


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _example_exports() -> dict[str, dict[str, object]]:
    """Every resource of every example exporter configuration, built the way labgrid's
    exporter builds it (``Exporter.add_resource``: its ``ResourceConfig``, the class
    named by the entry or its ``cls``, the export class from its ``exports`` registry,
    which makes the local labgrid resource): {"host/group/class": export}."""
    import contextlib
    import io

    from labgrid.remote import exporter as labgrid_exporter
    from labgrid.remote.config import ResourceConfig

    from hapbridge_labgrid.exporter import register
    register()
    built: dict[str, object] = {}
    for config in sorted(EXAMPLES.glob("exporter-*.yaml")):
        host = config.stem.removeprefix("exporter-")
        with contextlib.redirect_stdout(io.StringIO()):  # labgrid 26's ResourceConfig pprints what it loads
            data = ResourceConfig(str(config)).data
        for group, resources in data.items():
            for name, params in resources.items():
                if name == "location":
                    continue
                params = dict(params or {})
                cls = params.pop("cls", name)
                export_cls = labgrid_exporter.exports[cls]  # a KeyError: a class labgrid cannot export
                export = export_cls({"avail": False, "cls": cls, "params": params}, host=host,
                                    proxy="client", proxy_required=False)
                built[f"{host}/{group}/{cls}"] = export
    return built


def test_every_resource_of_the_example_exporters_is_built_by_labgrids_own_exporter_classes() -> None:
    from labgrid.resource.udev import USBPowerPort

    from hapbridge_labgrid.resources import HapbridgeBoard, HapbridgeFT232H
    built = _example_exports()
    boards = {k: e.local for k, e in built.items() if isinstance(e.local, HapbridgeBoard)}  # type: ignore[attr-defined]
    assert len(boards) == 4 and sum(isinstance(e.local, HapbridgeFT232H) for e in built.values()) == 1  # type: ignore[attr-defined]
    for key, board in boards.items():
        _check_port_match(key, board.match)
        assert board.actuator, key
    powers = {k: e.local for k, e in built.items() if isinstance(e.local, USBPowerPort)}  # type: ignore[attr-defined]
    assert len(powers) == 2
    for key, port in powers.items():
        # labgrid matches a USBPowerPort on the hub's interface (udev.py USBPowerPort:
        # DEVTYPE=usb_interface, DRIVER=hub), whose ID_PATH ends in :CONFIG.INTERFACE;
        # a device's ID_PATH (the board's own port) can never match it.
        assert port.match["DEVTYPE"] == "usb_interface" and port.match["DRIVER"] == "hub", key
        hub_path, interface = port.match["ID_PATH"].rsplit(":", 1)
        assert re.fullmatch(r"\d+\.\d+", interface), f"{key}: {port.match['ID_PATH']} is not a hub interface's path"
        # The port it switches is the one the board of its group hangs on.
        board = boards[key.replace("/USBPowerPort", "/HapbridgeBoard")]
        assert board.match["ID_PATH"] == f"{hub_path}.{port.index}", (key, board.match, port.match)


def test_the_example_environment_names_only_classes_labgrid_knows_and_places_that_have_them() -> None:
    import hapbridge_labgrid  # noqa: F401  (registers the classes, as env.yaml's `imports` does)
    from labgrid.config import Config
    from labgrid.factory import target_factory

    config = Config(str(EXAMPLES / "env.yaml"))
    places = (EXAMPLES / "places.sh").read_text()
    groups = {key.rsplit("/", 1)[0]: key for key in _example_exports()}
    for name, target in config.get_targets().items():
        for cls, args in target["resources"].items():
            assert cls in target_factory.resources, f"env.yaml: {name}: resource {cls}"
        for cls, args in target["drivers"].items():
            assert cls in target_factory.drivers, f"env.yaml: {name}: driver {cls}"
            fields = {f.name for f in attr.fields(target_factory.drivers[cls])}
            assert set(args or {}) <= fields, f"env.yaml: {name}: {cls} {args}"
        if "USBPowerDriver" in target["drivers"]:
            # Its place matches the hub port of an exported group (places.sh), which
            # the group's exporter configuration defines.
            place = target["resources"]["RemotePlace"]["name"]
            host, port = place.rsplit("-", 1)
            match = f"{host}/{host}-port-{port}/NetworkUSBPowerPort"
            assert match in places.replace("$port", port), f"places.sh: {place} has no {match}"
            assert f"{host}/{host}-port-{port}/USBPowerPort" in groups.values(), (place, sorted(groups.values()))


@pytest.mark.parametrize("config, said", [
    ('g:\n  HapbridgeBoard:\n    match: {ID_SERIAL_SHORT: "0001"}\n',
     'HapbridgeBoard {"match": {"ID_SERIAL_SHORT": "0001"}}: HapbridgeBoard: match: ID_SERIAL_SHORT: '
     'a hapbridge board is matched by its USB port'),
    ('g:\n  HapbridgeBoard:\n    match: {sys_name: "1-1"}\n    accelerometer_axis: w\n',
     "'accelerometer_axis' must be in ['x', 'y', 'z'] (got 'w')"),
])
def test_the_exporter_refuses_a_bad_hapbridge_resource_in_one_line_with_status_2(
        tmp_path: Path, config: str, said: str) -> None:
    import subprocess
    import sys
    exporter = Path(sys.executable).parent / "hapbridge-labgrid-exporter"
    resources = tmp_path / "exporter.yaml"
    resources.write_text(config)
    done = subprocess.run([str(exporter), "--coordinator", "127.0.0.1:1", str(resources)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    error_lines = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1 and said in error_lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_a_figure_out_of_its_limits_fails_the_test_and_lands_in_junit_with_its_verdict(
        pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET
    pytester.makepyfile(test_fig='''
def test_peak(hapbridge_figure):
    hapbridge_figure("rise", 12.5, "ms", high=20)
    hapbridge_figure("peak", 0.2, "g", low=0.3, high=3.0)
''')
    junit = pytester.path / "out.xml"
    result = pytester.runpytest_subprocess(f"--junitxml={junit}", "-o", "junit_family=xunit1")
    result.assert_outcomes(failed=1)
    assert "figure peak: 0.2 g is outside its limits [0.3, 3] g" in result.stdout.str()
    case = next(ET.parse(junit).getroot().iter("testcase"))
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props == {"figure.rise": "12.5", "figure.rise.unit": "ms", "figure.rise.high": "20",
                     "figure.rise.verdict": "PASS", "figure.peak": "0.2", "figure.peak.unit": "g",
                     "figure.peak.low": "0.3", "figure.peak.high": "3", "figure.peak.verdict": "FAIL"}
    # The <failure> is the test's own line that recorded the figure, not the helper's code.
    failure = case.find("failure")
    assert failure is not None
    text = failure.text or ""
    assert 'hapbridge_figure("peak", 0.2, "g", low=0.3, high=3.0)' in text, text
    assert "record_property" not in text and "def record" not in text, text
    assert len(text.splitlines()) < 12, text  # 34 lines of the helper's frame before
    # Without junit_logging, the helper says once that <system-out> stays empty.
    assert result.stdout.str().count("hapbridge_figure: --junitxml without `-o junit_logging=system-out`") == 1


def test_with_junit_logging_system_out_each_figure_is_a_line_of_the_testcases_system_out(
        pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET
    pytester.makepyfile(test_fig='''
def test_peak(hapbridge_figure):
    hapbridge_figure("rise", 12.5, "ms", high=20)
    hapbridge_figure("lag", 0.11, "ms")
''')
    junit = pytester.path / "out.xml"
    # pytest's default junit_family (xunit2) with system-out: GitLab's form.
    result = pytester.runpytest_subprocess(f"--junitxml={junit}", "-o", "junit_logging=system-out")
    result.assert_outcomes(passed=1)
    assert "junit_logging=system-out" not in result.stdout.str()  # no warning then
    case = next(ET.parse(junit).getroot().iter("testcase"))
    lines = (case.findtext("system-out") or "").splitlines()
    assert "figure rise = 12.5 ms [, 20] PASS" in lines and "figure lag = 0.11 ms [, ] UNCHECKED" in lines, lines
