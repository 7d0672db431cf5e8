import BridgeProtocol
import DeviceInterface
import Testing

/// `usb:SERIAL` and `ftdi:SERIAL` take the serial numbers a board can report, and only
/// those: the rule is the protocol header's (`HB_SERIAL_MAX_LEN`, `hb_serial_char_ok`),
/// which `BoardSerialNumber` holds boards to.
@Suite("The serial number in an address")
struct SerialNumberRuleTests {
    static let longest = BoardSerialNumber.maximumLength

    @Test("a serial of the header's maximum length parses, one character more does not, and the error says the limit")
    func lengthIsTheHeaders() throws {
        let serial = String(repeating: "A", count: Self.longest)
        #expect(try DeviceAddress(parsing: "usb:" + serial) == .usb(.serial(serial)))
        #expect(try DeviceAddress(parsing: "usb:serial=" + serial) == .usb(.serial(serial)))
        #expect(try DeviceAddress(parsing: "ftdi:" + serial) == .hosted(scheme: "ftdi", serial: serial))
        for text in ["usb:", "usb:serial=", "ftdi:"] {
            #expect(throws: DeviceAddressError.self, "\(text)") { try DeviceAddress(parsing: text + serial + "A") }
        }
        do {
            _ = try DeviceAddress(parsing: "usb:" + serial + "A")
        } catch {
            #expect(error.rule == "a serial number is 1-\(Self.longest) characters of 0-9 A-Z a-z - . _", "\(error)")
        }
        #expect(throws: DeviceAddressError.self) { try DeviceAddress(parsing: "usb:serial=") }
    }

    @Test("every ASCII byte is allowed in an address's serial exactly when BoardSerialNumber allows it")
    func characterSetIsBoardSerialNumbers() {
        var disagreements: [UInt8] = []
        for byte in UInt8(0)...0x7F {
            let text = String(UnicodeScalar(byte))
            let board = (try? BoardSerialNumber("A" + text)) != nil
            let address = (try? DeviceAddress(parsing: "usb:serial=A" + text)) == .usb(.serial("A" + text))
            if board != address { disagreements.append(byte) }
        }
        #expect(disagreements.isEmpty, "bytes on which the two rules disagree: \(disagreements)")
        #expect((try? DeviceAddress(parsing: "usb:serial=Aé")) == nil && (try? BoardSerialNumber("Aé")) == nil)
    }
}
