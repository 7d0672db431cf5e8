import BridgeProtocol
import Glibc
import Hex

/// The serial number `flash` writes to the board's EEPROM record (protocol.h's
/// `HB_SERIAL_RECORD_*`, `BoardSerialRecord`), where the firmware reads it at start-up
/// for HELLO_REPLY and iSerialNumber, and so where calibrations are stored under it.
/// Given (`--serial S`: written whatever the EEPROM holds) or derived (the board's
/// firmware reported `UNSET`: written only where the EEPROM holds no serial).
public struct SerialWrite: Sendable, Equatable {
    public enum Source: String, Sendable {
        /// `--serial S`: replaces whatever serial the EEPROM holds.
        case given
        /// Made by `flash` for a board that reported `UNSET`: never replaces a serial.
        case derived
    }
    public var serial: BoardSerialNumber
    public var source: Source

    public init(_ serial: BoardSerialNumber, source: Source) {
        self.serial = serial
        self.source = source
    }

    /// What a derived serial starts with, so a person reading `hapbridge list` knows
    /// hapbridge made it.
    public static let derivedPrefix = "HB-"
    /// Random bytes after the prefix (as hex: 16 digits, 19 characters with the prefix,
    /// inside `BoardSerialNumber.maximumLength`). Neither bootloader can read the
    /// ATmega32U4's unique-ID bytes of the signature row (AVR109 's' and FLIP's
    /// configuration reads return only the three signature bytes), so a derived serial
    /// is random: 64 bits from the kernel's random source.
    static let derivedRandomBytes = 8
    static let randomSource = "/dev/urandom"

    /// A new serial for a board with none: `HB-` and 16 upper-case hex digits from the
    /// kernel's random source.
    public static func derive() throws(FlashError) -> SerialWrite {
        var bytes = [UInt8](repeating: 0, count: derivedRandomBytes)
        let fd = open(randomSource, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FlashError(.protocolError, "cannot make a serial number: \(randomSource): \(String(cString: strerror(errno))); give one with --serial S")
        }
        defer { close(fd) }
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + got }, $0.count - got) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw FlashError(.protocolError, "cannot make a serial number: reading \(randomSource) failed; give one with --serial S")
            }
            got += n
        }
        let text = derivedPrefix + Hex.bytes(bytes)
        do { return SerialWrite(try BoardSerialNumber(text), source: .derived) } catch {
            throw FlashError(.protocolError, "the serial number made, \(text), breaks the rule: \(error.description)")
        }
    }

    /// What happened to the EEPROM record, for the report.
    public enum Outcome: String, Sendable {
        /// The record was written and read back equal.
        case written
        /// The EEPROM held this serial already: nothing written.
        case unchanged
        /// A derived serial, but the EEPROM holds a serial already: kept, nothing written.
        case kept
    }

    /// Reads the record, writes it unless it already says the same (or, for a derived
    /// serial, holds any serial), and reads it back. `previous`: the serial the EEPROM
    /// held before, if any.
    func apply(with programmer: some BootloaderProgrammer) throws(FlashError) -> (outcome: Outcome, previous: BoardSerialNumber?, stored: BoardSerialNumber) {
        let address = BoardSerialRecord.eepromAddress
        let before = BoardSerialRecord(reading: try programmer.readEEPROM(address: address, count: BoardSerialRecord.length))?.serial
        if before == serial { return (.unchanged, before, serial) }
        if let before, source == .derived { return (.kept, before, before) }
        let bytes = BoardSerialRecord(serial).bytes
        try programmer.writeEEPROM(address: address, bytes: bytes)
        let back = try programmer.readEEPROM(address: address, count: bytes.count)
        guard back == bytes else {
            let at = zip(back, bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(back.count, bytes.count)
            throw FlashError(
                .verifyFailed,
                "the serial record (EEPROM \(address)...\(address + bytes.count - 1)) read back differs at EEPROM byte \(address + at): "
                    + "the board has \(at < back.count ? Hex.literal(back[at], width: 2) : "nothing"), the record \(at < bytes.count ? Hex.literal(bytes[at], width: 2) : "0x--"); "
                    + "the application is written and verified: run `hapbridge flash --serial \(serial)` again")
        }
        return (.written, before, serial)
    }
}
