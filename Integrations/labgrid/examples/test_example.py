"""An example suite for env.yaml: `pytest --lg-env env.yaml test_example.py`."""

from hapbridge_labgrid import HapbridgeStrategy


def test_the_board_is_brought_up_and_its_response_is_in_limits(strategy: HapbridgeStrategy, hapbridge_figure) -> None:
    strategy.transition("ready")  # off (hub port switched off) → flashed → calibrated → ready
    record = strategy.hapbridge.measure("ios.impact.heavy")
    for m in record["measurements"]:
        if m["name"] == "peak acceleration":
            hapbridge_figure("peak_acceleration", m["value"], m["unit"], low=0.3, high=3.0)
