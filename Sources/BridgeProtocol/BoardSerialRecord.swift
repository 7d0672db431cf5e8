import CHapbridgeProtocol

/// The serial-number record a board's firmware reads from its EEPROM first
/// (`hb_board_serial`), as `hapbridge flash --serial` writes it through the
/// bootloader. The layout is the protocol header's (`HB_SERIAL_RECORD_*` in
/// protocol.h); this type only reads it from there.
public struct BoardSerialRecord: Sendable, Equatable {
    public let serial: BoardSerialNumber

    /// The EEPROM byte address the record starts at.
    public static let eepromAddress = Int(HB_SERIAL_RECORD_EEPROM_ADDR)
    /// The bytes the firmware reads for it (magic, length, up to `maximumLength` characters).
    public static let length = Int(HB_SERIAL_RECORD_LEN)
    static let magic = Array(HB_SERIAL_RECORD_MAGIC.utf8)
    static let magicOffset = Int(HB_SERIAL_RECORD_OFF_MAGIC)
    static let lengthOffset = Int(HB_SERIAL_RECORD_OFF_LEN)
    static let textOffset = Int(HB_SERIAL_RECORD_OFF_TEXT)

    public init(_ serial: BoardSerialNumber) { self.serial = serial }

    /// The bytes to write at `eepromAddress`: magic, length, text; no padding (the
    /// firmware reads no further than the length says).
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.textOffset + serial.bytes.count)
        for (i, b) in Self.magic.enumerated() { out[Self.magicOffset + i] = b }
        out[Self.lengthOffset] = UInt8(serial.bytes.count)
        for (i, b) in serial.bytes.enumerated() { out[Self.textOffset + i] = b }
        return out
    }

    /// The record in `eeprom` bytes read from `eepromAddress` on, as the firmware
    /// judges it: nil when the magic, the length or a character breaks the rule (an
    /// erased EEPROM reads 0xFF: no record).
    public init?(reading eeprom: some Collection<UInt8>) {
        let b = Array(eeprom.prefix(Self.length))
        guard b.count > Self.textOffset, Array(b[Self.magicOffset..<(Self.magicOffset + Self.magic.count)]) == Self.magic else { return nil }
        let n = Int(b[Self.lengthOffset])
        guard n >= 1, n <= BoardSerialNumber.maximumLength, Self.textOffset + n <= b.count else { return nil }
        guard let serial = try? BoardSerialNumber(String(decoding: b[Self.textOffset..<(Self.textOffset + n)], as: UTF8.self)) else { return nil }
        self.serial = serial
    }
}
