import DeviceInterface
import Testing

@Suite("Device addresses")
struct DeviceAddressTests {
    @Test("sim, usb, usb:SERIAL and usb:BUS-PORT[.PORT] parse to what they name and print back the same")
    func addressesRoundTrip() throws {
        let cases: [(String, DeviceAddress)] = [
            ("sim", .simulated),
            ("usb", .usb(.any)),
            ("usb:HB0042", .usb(.serial("HB0042"))),
            ("usb:1-2", .usb(.port(bus: 1, ports: [2]))),
            ("usb:3-1.4", .usb(.port(bus: 3, ports: [1, 4]))),
            ("usb:serial=1-2", .usb(.serial("1-2"))),
            ("ftdi", .ftdi(serial: nil)),
            ("ftdi:FT1234", .ftdi(serial: "FT1234")),
        ]
        for (text, address) in cases {
            #expect(try DeviceAddress(parsing: text) == address, "\(text)")
            #expect(try DeviceAddress(parsing: address.description) == address, "\(address)")
        }
        #expect(try DeviceAddress(parsing: "usb:path=1-2") == .usb(.port(bus: 1, ports: [2])))
    }

    @Test("a bad address names what it found and the rule it broke")
    func badAddressesSayWhy() {
        let bad = ["", "usb:", "usb:0-1", "usb:1-", "usb:1-2..3", "usb:1-256", "serial:x", "sim:2", "usb:a b",
                   "usb:ABCDEFGHIJKLMNOPQRSTU", "usb:\u{1B}[31m"]
        for text in bad {
            #expect(throws: DeviceAddressError.self, "\(text)") { try DeviceAddress(parsing: text) }
        }
        do {
            _ = try DeviceAddress(parsing: "bluetooth:1")
        } catch {
            #expect(error.description.contains("expected sim, usb"))
        }
    }
}
