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
            ("ftdi", .hosted(scheme: "ftdi", serial: nil)),
            ("ftdi:FT1234", .hosted(scheme: "ftdi", serial: "FT1234")),
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
            Issue.record("bluetooth:1 parsed")
        } catch {
            #expect(error.rule == "expected sim, usb, usb:SERIAL, usb:BUS-PORT[.PORT] or ftdi[:SERIAL]", "\(error)")
        }
    }

    @Test("a hosted adapter's scheme parses in any case to the listed scheme, and takes a serial by the serial rule: ftdi, FTDI:FT1, not ftdi: or ftdi:a b")
    func hostedSchemesParseFromTheirList() throws {
        for scheme in DeviceAddress.hostedSchemes {
            #expect(try DeviceAddress(parsing: scheme.uppercased()) == .hosted(scheme: scheme, serial: nil))
            #expect(try DeviceAddress(parsing: scheme.uppercased() + ":FT1") == .hosted(scheme: scheme, serial: "FT1"))
            #expect(DeviceAddress.hosted(scheme: scheme, serial: "FT1").description == scheme + ":FT1")
            for bad in [scheme + ":", scheme + ":a b", scheme + ":\u{1B}[31m"] {
                #expect(throws: DeviceAddressError.self, "\(bad)") { try DeviceAddress(parsing: bad) }
            }
        }
    }
}
