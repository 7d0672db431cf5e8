"""pyftdi's own MPSSE I2C (I2cController) on the FT232H under `hapbridge emulate ft232h`:
FTDITests runs it to show that an FTDI driver hapbridge did not write agrees with
the emulation. Prints "kind key=value" lines; exits non-zero on any failure."""
import sys

from pyftdi.i2c import I2cController, I2cNackError

DRV2605 = 0x5A
EN = 1 << 4  # AD4, the DRV2605's EN (pulled down on the emulated board)

i2c = I2cController()
i2c.configure("ftdi://ftdi:232h/1", frequency=400000)
# EN high through pyftdi's GPIO port on the pins I2C leaves free.
gpio = i2c.get_gpio()
gpio.set_direction(EN, EN)
gpio.write(EN)

port = i2c.get_port(DRV2605)
status = port.read_from(0x00, 1)[0]
print(f"status value=0x{status:02X} device_id={status >> 5}")
mode = port.read_from(0x01, 1)[0]
print(f"mode value=0x{mode:02X}")
port.write_to(0x01, bytes([0x00]))  # out of standby
port.write_to(0x16, bytes([0x5A]))  # RATED_VOLTAGE
back = port.read_from(0x16, 1)[0]
print(f"readback register=0x16 wrote=0x5A read=0x{back:02X}")
port.write_to(0x16, bytes([0x3E, 0x8C]))  # RATED_VOLTAGE and OD_CLAMP, auto-increment
both = port.read_from(0x16, 2)
print(f"readback2 read={both.hex()}")

try:
    i2c.get_port(0x3B).read_from(0x00, 1)
    print("absent nack=0")
except I2cNackError as e:
    print("absent nack=1")
i2c.terminate()
print("done ok=1")
sys.exit(0 if back == 0x5A and status >> 5 == 7 and both == bytes([0x3E, 0x8C]) else 1)
