/// How a DRV2605 is wired to an FT232H for I2C (FTDI AN_113/AN_255; the Adafruit FT232H
/// breakout's D0...D7 are ADBUS 0...7): SCL on AD0 (TCK), SDA on AD1 (TDI, out) and AD2
/// (TDO, in) tied together, each pulled up; the DRV2605's EN on AD4 through a
/// pull-down, so that a host that lets go of the pins (unplugged, crashed, the chip
/// reset) leaves the chip in shutdown. The host and the emulation both use these bits.
public enum FT232HI2CWiring {
    public static let scl: UInt8 = 1 << 0
    public static let sdaOut: UInt8 = 1 << 1
    public static let sdaIn: UInt8 = 1 << 2
    public static let enable: UInt8 = 1 << 4
    /// The open-drain pins (drive-zero-only): SCL and both SDA pins.
    public static let openDrain: UInt8 = scl | sdaOut | sdaIn

}
