"""A pytest helper: each measured figure lands in pytest's JUnit report.

``hapbridge_figure(name, value, unit, low=None, high=None)`` (a fixture) records the
figure as the test's properties — ``figure.NAME`` = value, ``figure.NAME.unit``,
``figure.NAME.low``/``.high``, ``figure.NAME.verdict`` (PASS, FAIL, or UNCHECKED without
limits) — through pytest's ``record_property``, so ``pytest --junitxml`` writes them
inside the test's ``<testcase>`` (pytest warns that properties break the xunit2 schema:
``-o junit_family=xunit1`` writes them to a schema that allows them), and prints one
line per figure on the test's output; a figure out of its limits fails the test with a
message naming the figure, its value, unit and limits. Loaded by the package's
``pytest11`` entry point.
"""

from __future__ import annotations

import math
import warnings
from typing import Callable, Protocol

import pytest


class FigureRecorder(Protocol):
    def __call__(self, name: str, value: float, unit: str, low: float | None = None,
                 high: float | None = None, *, check: bool = True) -> str: ...


def figure_verdict(value: float, low: float | None, high: float | None) -> str:
    """PASS inside [low, high] (either bound optional), FAIL outside or not a number,
    UNCHECKED with neither bound."""
    if low is None and high is None:
        return "UNCHECKED"
    if math.isnan(value):
        return "FAIL"
    if low is not None and value < low:
        return "FAIL"
    if high is not None and value > high:
        return "FAIL"
    return "PASS"


_WARNED = pytest.StashKey[bool]()


def _warn_without_system_out(config: pytest.Config) -> None:
    """Say once per session when ``--junitxml`` is given but the figures' lines will not
    reach the testcases' ``<system-out>`` (``junit_logging`` is ``no``, pytest's default)."""
    if config.stash.get(_WARNED, False):
        return
    config.stash[_WARNED] = True
    if config.getoption("xmlpath", None) and config.getini("junit_logging") == "no":
        warnings.warn(pytest.PytestWarning(
            "hapbridge_figure: --junitxml without `-o junit_logging=system-out` leaves each figure's line "
            "(value, unit, limits, verdict) out of the testcase's <system-out>, the only place GitLab "
            "shows it"), stacklevel=3)


@pytest.fixture
def hapbridge_figure(record_property: Callable[[str, object], None],
                     pytestconfig: pytest.Config) -> FigureRecorder:
    _warn_without_system_out(pytestconfig)
    def record(name: str, value: float, unit: str, low: float | None = None,
               high: float | None = None, *, check: bool = True) -> str:
        # A failing figure's report is the test's line that recorded it, not this helper's code.
        __tracebackhide__ = True
        if low is not None and high is not None and low > high:
            raise ValueError(f"figure {name}: low {low:g} is above high {high:g}")
        verdict = figure_verdict(float(value), low, high)
        record_property(f"figure.{name}", f"{float(value):g}")
        record_property(f"figure.{name}.unit", unit)
        if low is not None:
            record_property(f"figure.{name}.low", f"{low:g}")
        if high is not None:
            record_property(f"figure.{name}.high", f"{high:g}")
        record_property(f"figure.{name}.verdict", verdict)
        # The same in one line on the test's standard output: `-o junit_logging=system-out`
        # puts it in the testcase's <system-out>, which dashboards that ignore <properties>
        # (GitLab) show.
        lo = "" if low is None else f"{low:g}"
        hi = "" if high is None else f"{high:g}"
        print(f"figure {name} = {float(value):g} {unit} [{lo}, {hi}] {verdict}")
        if check and verdict == "FAIL":
            bounds = f"[{'' if low is None else f'{low:g}'}, {'' if high is None else f'{high:g}'}]"
            pytest.fail(f"figure {name}: {float(value):g} {unit} is outside its limits {bounds} {unit}")
        return verdict

    return record


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """A board that is not there is an ERROR of the test, not a FAIL, as in ``hapbridge
    run`` (a device that vanished ERRORs the test): a ``BoardUnavailable`` raised in the
    test's body is reported as an error of its set-up, so JUnit says ``<error>``."""
    outcome = yield
    report = outcome.get_result()
    if call.when == "call" and call.excinfo is not None:
        from .driver import BoardUnavailable
        if call.excinfo.errisinstance(BoardUnavailable):
            report.when = "setup"
