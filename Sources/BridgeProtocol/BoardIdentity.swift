import CHapbridgeProtocol

/// A board's serial number as HELLO_REPLY (protocol 1.1) and the USB iSerialNumber
/// string carry it: 1 to `maximumLength` characters from [0-9A-Za-z._-]
/// (`protocol.h`, `hb_serial_char_ok`).
public struct BoardSerialNumber: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    public static let maximumLength = Int(HB_SERIAL_MAX_LEN)

    /// What a board reports when neither its EEPROM nor its chip gives it a serial.
    public static let unset = BoardSerialNumber(checked: HB_SERIAL_FALLBACK)

    public init(_ text: String) throws(BoardSerialNumberError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maximumLength else { throw .tooLong(text, length: bytes.count) }
        if let i = bytes.firstIndex(where: { !hb_serial_char_ok($0) }) {
            throw .character(text, offset: i)
        }
        self.text = text
    }

    /// From the header's own constants, which the C side holds to the same rule.
    private init(checked text: String) { self.text = text }

    /// ASCII bytes, as the firmware stores and sends them.
    public var bytes: [UInt8] { Array(text.utf8) }

    public var description: String { text }
}

/// Why a serial number breaks the rule of `BoardSerialNumber`.
public enum BoardSerialNumberError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(String, length: Int)
    /// The byte at `offset` (UTF-8) is not one of [0-9A-Za-z._-].
    case character(String, offset: Int)

    public var description: String {
        switch self {
        case .empty: "a serial number has at least one character"
        case .tooLong(let s, let n): "serial number \"\(s)\" has \(n) characters; at most \(BoardSerialNumber.maximumLength)"
        case .character(let s, let i): "serial number \"\(s)\": byte \(i) is not one of [0-9A-Za-z._-]"
        }
    }
}

/// What a board found in its boot section (HELLO_REPLY byte 18, protocol 1.1).
public struct BootloaderKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ value: UInt32) { rawValue = UInt8(truncatingIfNeeded: value) }

    /// The boot section is blank: nothing to jump to.
    public static let noneFound = BootloaderKind(HB_BOOTLOADER_NONE)
    /// Caterina (Arduino Leonardo, Pro Micro): AVR109 over CDC.
    public static let caterina = BootloaderKind(HB_BOOTLOADER_CATERINA)
    /// Atmel's factory DFU bootloader (FLIP, dfu-programmer).
    public static let atmelDFU = BootloaderKind(HB_BOOTLOADER_ATMEL_DFU)
    /// Something the firmware does not recognise.
    public static let unrecognised = BootloaderKind(HB_BOOTLOADER_UNKNOWN)

    public var description: String {
        switch self {
        case .noneFound: "none"
        case .caterina: "Caterina"
        case .atmelDFU: "Atmel DFU"
        case .unrecognised: "unrecognised"
        default: "bootloader kind \(rawValue)"
        }
    }
}

/// HELLO_REPLY's capability bits (`HB_CAP_*`).
public struct BoardCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    init(_ bit: UInt32) { rawValue = UInt16(truncatingIfNeeded: bit) }

    public static let rtp = BoardCapabilities(HB_CAP_RTP)
    public static let registerWrite = BoardCapabilities(HB_CAP_REG_WRITE)
    public static let romSequence = BoardCapabilities(HB_CAP_ROM_SEQ)
    public static let stampedStop = BoardCapabilities(HB_CAP_STAMPED_STOP)
    public static let clockSync = BoardCapabilities(HB_CAP_CLOCK_SYNC)
    public static let queueStatus = BoardCapabilities(HB_CAP_QUEUE_STATUS)
    public static let chipStatus = BoardCapabilities(HB_CAP_CHIP_STATUS)
    public static let bootloader = BoardCapabilities(HB_CAP_BOOTLOADER)
    /// 1.1: I2C_READ and I2C_WRITE.
    public static let rawI2C = BoardCapabilities(HB_CAP_RAW_I2C)
    /// 1.1: REPLACE_FROM.
    public static let replaceFrom = BoardCapabilities(HB_CAP_REPLACE_FROM)
    /// 1.1: serial number and bootloader kind in HELLO_REPLY.
    public static let identity = BoardCapabilities(HB_CAP_IDENTITY)
    /// An accelerometer answered: ACCEL_STREAM / ACCEL_SAMPLES (PROTOCOL.md, "Accelerometer").
    public static let accelerometer = BoardCapabilities(HB_CAP_ACCEL)
}
