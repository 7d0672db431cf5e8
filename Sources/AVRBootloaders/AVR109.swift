/// AVR109 ("butterfly"), the command set Caterina speaks over its CDC-ACM port: Atmel's
/// application note AVR109 "Self Programming", as avrdude's avr109.c sends it and
/// Arduino's bootloaders/caterina/Caterina.c answers it. Facts of the protocol only:
/// which letter is which command, what follows it, and the protocol's own answers.
/// What one bootloader says about itself ('S', 'V', its lock bits) is that bootloader's
/// (the emulation's side); what a host asks, and when, is the programmer's.
public enum AVR109 {
    /// The command letters, each followed by the argument bytes its comment names.
    public enum Command: UInt8, Sendable, CaseIterable {
        /// ESC: a host resynchronises with it (avrdude sends it first); ignored.
        case resynchronise = 0x1B
        /// 'S': the software identifier, `identifierLength` characters.
        case softwareIdentifier = 0x53
        /// 'V': the software version, two characters.
        case softwareVersion = 0x56
        /// 'v': the hardware version, two characters (Caterina does not have it).
        case hardwareVersion = 0x76
        /// 'p': the programmer type, one character ('S': serial).
        case programmerType = 0x70
        /// 'a': auto-increment support, `yes` or `no`.
        case autoIncrement = 0x61
        /// 'b': block support: `yes` and the block size (big-endian 16 bits), or `no`.
        case blockSupport = 0x62
        /// 't': the supported device codes, ending with a 0.
        case deviceCodes = 0x74
        /// 'T' code: select the device.
        case selectDevice = 0x54
        /// 'P' / 'L': enter / leave programming mode.
        case enterProgramming = 0x50
        case leaveProgramming = 0x4C
        /// 'A' high low: set the *word* address (flash is addressed in 16-bit words).
        case setAddress = 0x41
        /// 'B' size(BE16) memory data…: write a block at the address, which moves on by it.
        case blockWrite = 0x42
        /// 'g' size(BE16) memory: read a block from the address, which moves on by it.
        case blockRead = 0x67
        /// 'e': erase the application section.
        case chipErase = 0x65
        /// 's': the three signature bytes, the last one first (0x87 0x95 0x1E for 1E 95 87).
        case readSignature = 0x73
        /// 'E': leave the bootloader for the application.
        case exitBootloader = 0x45
        /// 'x' / 'y' byte: LED on / off.
        case setLED = 0x78
        case clearLED = 0x79
        /// 'r': the lock bits; 'F', 'N', 'Q': the low, high and extended fuses.
        case readLockBits = 0x72
        case readLowFuse = 0x46
        case readHighFuse = 0x4E
        case readExtendedFuse = 0x51
        /// 'l' byte: write the lock bits.
        case writeLockBits = 0x6C

        /// The letter as a one-byte command with no arguments.
        public var byte: UInt8 { rawValue }
    }

    /// The memory types a block command names.
    public enum Memory: UInt8, Sendable {
        case flash = 0x46  // 'F'
        case eeprom = 0x45  // 'E'
    }

    /// The answer to a command that returns nothing else: a carriage return.
    public static let acknowledge: UInt8 = 0x0D
    /// The answer to a command the bootloader does not know.
    public static let unknownCommand: UInt8 = 0x3F  // '?'
    /// 'a' and 'b' answer yes or no.
    public static let yes: UInt8 = 0x59  // 'Y'
    public static let no: UInt8 = 0x4E  // 'N'
    /// 'S' answers exactly this many characters (avrdude reads 7).
    public static let identifierLength = 7
    /// 's' sends the signature's last byte first: 0x87 0x95 0x1E for 1E 95 87.
    public static let signatureReversed = true
}
