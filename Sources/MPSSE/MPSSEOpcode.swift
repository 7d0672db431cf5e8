/// The MPSSE commands hapbridge sends and its FT232H emulation executes (FTDI AN_108,
/// "Command Processor for MPSSE and MCU Host Bus Emulation Modes"). The one list of
/// them: the host side (FTDIBridge) builds its command stream from these, the
/// emulation (USBEmulation's MPSSEEngine) decodes the same names.
public enum MPSSEOpcode {
    // Data shifting (AN_108 §3.3/3.4): bit 0 set = write on the falling edge, bit 1 =
    // bit mode (else bytes), bit 2 = read on the falling edge, bit 3 = LSB first,
    // bit 4 = write TDI, bit 5 = read TDO. Lengths are "count - 1".
    /// Clock bytes out on the falling edge, MSB first (length low, high, bytes).
    public static let bytesOutFallingMSB: UInt8 = 0x11
    /// Clock bits out on the falling edge, MSB first (length, byte).
    public static let bitsOutFallingMSB: UInt8 = 0x13
    /// Clock bytes in on the rising edge, MSB first (length low, high).
    public static let bytesInRisingMSB: UInt8 = 0x20
    /// Clock bits in on the rising edge, MSB first (length); the bits arrive in the
    /// answer byte's low end.
    public static let bitsInRisingMSB: UInt8 = 0x22

    /// Set ADBUS 0...7: value, direction (1 = output).
    public static let setLowBits: UInt8 = 0x80
    /// Read ADBUS 0...7 (one byte answered).
    public static let readLowBits: UInt8 = 0x81
    /// Set ACBUS 0...7: value, direction.
    public static let setHighBits: UInt8 = 0x82
    /// Read ACBUS 0...7.
    public static let readHighBits: UInt8 = 0x83
    /// Connect TDI to TDO internally / disconnect.
    public static let loopbackOn: UInt8 = 0x84
    public static let loopbackOff: UInt8 = 0x85
    /// The clock divisor: value low, high (see `MPSSEClock`).
    public static let setClockDivisor: UInt8 = 0x86
    /// Send what the chip has to the host now, without waiting for the latency timer.
    public static let sendImmediate: UInt8 = 0x87
    /// The 60 MHz master clock divided by 5 (12 MHz, the power-on state) or not.
    public static let disableDivideBy5: UInt8 = 0x8A
    public static let enableDivideBy5: UInt8 = 0x8B
    /// Three-phase clocking: data held for a clock's both edges, each clock 1.5 periods
    /// long (what I2C needs: SDA stable around SCL's rising edge).
    public static let enableThreePhase: UInt8 = 0x8C
    public static let disableThreePhase: UInt8 = 0x8D
    /// Clock `length + 1` cycles without data (length).
    public static let clockBits: UInt8 = 0x8E
    /// Clock `(length + 1) × 8` cycles without data (length low, high).
    public static let clockBytes: UInt8 = 0x8F
    public static let enableAdaptiveClocking: UInt8 = 0x96
    public static let disableAdaptiveClocking: UInt8 = 0x97
    /// Drive-zero-only: pins in the masks (low byte, high byte) drive a 0 and float a
    /// 1 (open drain, the pull-ups make the high level): I2C's wired AND.
    public static let driveZeroOnly: UInt8 = 0x9E

    /// Opcodes AN_108 leaves invalid, used to check the command stream is in sync: the
    /// chip answers `badCommandEcho` followed by the opcode itself.
    public static let bogus: UInt8 = 0xAA
    public static let bogus2: UInt8 = 0xAB
    public static let badCommandEcho: UInt8 = 0xFA
}
