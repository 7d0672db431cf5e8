"""The alternative a user would otherwise pick: the same host-timed DRV2605 writes as
FT232HBenchmarks, made from Python with pyftdi's own MPSSE I2C (I2cController).

Run under `hapbridge emulate ft232h -- python3 pyftdi_events.py COUNT PERIOD_US MODE`.
MODE is "sleep" (time.sleep until each stamp: what a script usually does) or "spin"
(sleep until SPIN_US before the stamp, then spin on the monotonic clock: what the
hosted core does). For each event it takes the stamp (a multiple of the period from
the start), waits, and writes RTP_INPUT; actual is when the write call begins,
CLOCK_MONOTONIC as the Swift side reads it. Prints one line per figure:
  error p50=… p99=… p999=… max=… n=…   (actual − stamp, µs)
  call  p50=… p99=… p999=… max=… n=…   (the write call's duration, µs)
Exits non-zero if a write fails."""
import os
import sys
import time

from pyftdi.i2c import I2cController

DRV2605 = 0x5A
EN = 1 << 4  # AD4, wired to the DRV2605's EN (Hardware/boards/ft232h.md)
MODE, RTP_INPUT = 0x01, 0x02
SPIN_US = 200


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    rank = max(1, min(len(sorted_values), int(-(-p * len(sorted_values) // 100))))
    return sorted_values[rank - 1]


def line(name, values):
    s = sorted(values)
    return (f"{name} p50={percentile(s, 50):.2f} p99={percentile(s, 99):.2f} "
            f"p999={percentile(s, 99.9):.2f} max={s[-1]:.2f} n={len(s)}")


def main():
    count, period_us, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    i2c = I2cController()
    i2c.configure("ftdi://ftdi:232h/1", frequency=400000)
    gpio = i2c.get_gpio()
    gpio.set_direction(EN, EN)
    gpio.write(EN)
    port = i2c.get_port(DRV2605)
    port.write_to(MODE, bytes([0x05]))  # RTP mode, out of standby
    errors, calls = [], []
    start = time.monotonic_ns() + 10 * period_us * 1000
    try:
        for k in range(count):
            stamp = start + k * period_us * 1000
            if mode == "spin":
                ahead = (stamp - time.monotonic_ns()) / 1e9 - SPIN_US / 1e6
                if ahead > 0:
                    time.sleep(ahead)
                while time.monotonic_ns() < stamp:
                    pass
            else:
                ahead = (stamp - time.monotonic_ns()) / 1e9
                if ahead > 0:
                    time.sleep(ahead)
            began = time.monotonic_ns()
            port.write_to(RTP_INPUT, bytes([k & 0x7F]))
            calls.append((time.monotonic_ns() - began) / 1000)
            errors.append((began - stamp) / 1000)
    finally:
        port.write_to(RTP_INPUT, bytes([0]))
        port.write_to(MODE, bytes([0x40]))  # standby
        gpio.write(0)
        i2c.terminate()
    print(line("error", errors))
    print(line("call", calls))


if __name__ == "__main__":
    main()
