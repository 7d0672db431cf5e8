import BridgeProtocol
import FirmwareCore

extension BoardSerialNumber {
    /// What the firmware reports for an EEPROM holding `eeprom` on a part with no
    /// readable unique ID: the firmware's own rule (`hb_board_serial`, board_identity.c,
    /// which the ATmega32U4 port runs at start-up over the record at
    /// `HB_SERIAL_RECORD_EEPROM_ADDR`): the record's serial when it is valid, else
    /// `UNSET`. An emulated board reports what a board with that EEPROM would.
    public init(readingEEPROM eeprom: [UInt8]) {
        let start = Int(HB_SERIAL_RECORD_EEPROM_ADDR)
        var record = [UInt8](repeating: 0xFF, count: Int(HB_SERIAL_RECORD_LEN))
        for i in record.indices where start + i < eeprom.count { record[i] = eeprom[start + i] }
        var out = [UInt8](repeating: 0, count: Int(HB_SERIAL_MAX_LEN))
        let n = Int(hb_board_serial(record, nil, &out))
        // The firmware's rule made it: a valid serial or HB_SERIAL_FALLBACK.
        self = (try? BoardSerialNumber(String(decoding: out.prefix(n), as: UTF8.self))) ?? .unset
    }
}
