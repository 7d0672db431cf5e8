"""The JUnit XML ``hapbridge run --junit`` writes, read back into plain values."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import attr


@attr.s(frozen=True)
class JUnitCase:
    name: str = attr.ib()
    classname: str = attr.ib()
    time: float = attr.ib()
    # "passed", "failure", "error" or "skipped"
    outcome: str = attr.ib()
    message: str = attr.ib(default="")


@attr.s(frozen=True)
class JUnitReport:
    tests: int = attr.ib()
    failures: int = attr.ib()
    errors: int = attr.ib()
    skipped: int = attr.ib()
    cases: list[JUnitCase] = attr.ib()


class JUnitError(ValueError):
    """The report is not the JUnit XML expected; the message names the file and why."""


def parse_junit(path: Path) -> JUnitReport:
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise JUnitError(f"{path}: not a readable JUnit XML file: {e}") from e
    if root.tag not in ("testsuites", "testsuite"):
        raise JUnitError(f"{path}: root element <{root.tag}>, expected <testsuites> or <testsuite>")
    cases: list[JUnitCase] = []
    for case in root.iter("testcase"):
        outcome, message = "passed", ""
        for kind in ("failure", "error", "skipped"):
            found = case.find(kind)
            if found is not None:
                outcome = kind
                message = found.get("message") or (found.text or "")
                break
        try:
            time = float(case.get("time", "0") or 0)
        except ValueError as e:
            raise JUnitError(f"{path}: testcase {case.get('name')!r}: time {case.get('time')!r} is not a number") from e
        cases.append(JUnitCase(name=case.get("name", ""), classname=case.get("classname", ""),
                               time=time, outcome=outcome, message=message))
    return JUnitReport(
        tests=len(cases),
        failures=sum(c.outcome == "failure" for c in cases),
        errors=sum(c.outcome == "error" for c in cases),
        skipped=sum(c.outcome == "skipped" for c in cases),
        cases=cases,
    )
