import Foundation
import Testing
import BridgeProtocol
import USBBridge

/// Hardware/udev/60-hapbridge.rules against the identities discovery knows
/// (`USBKnownIdentity.all`, the bridge's from usb_identity.h): every device hapbridge
/// lists can be opened without root, and the rules grant nothing else.
@Suite("udev rules")
struct UdevRulesTests {
    static let rulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Hardware/udev/60-hapbridge.rules").path

    struct Rule {
        var subsystem: String
        var id: String  // "vvvv:pppp"
        var line: String
    }

    static func rules() throws -> [Rule] {
        let text = try String(contentsOfFile: rulesPath, encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { line in
            func value(_ key: String) -> String {
                guard let r = line.range(of: key + "==\"") else { return "" }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
            let vendor = value("ATTR{idVendor}").isEmpty ? value("ATTRS{idVendor}") : value("ATTR{idVendor}")
            let product = value("ATTR{idProduct}").isEmpty ? value("ATTRS{idProduct}") : value("ATTR{idProduct}")
            return Rule(subsystem: value("SUBSYSTEM"), id: vendor + ":" + product, line: line)
        }
    }

    @Test("every identity hapbridge lists has a rule, and every rule is one hapbridge lists")
    func rulesMatchTheKnownIdentities() throws {
        let ruled = Set(try Self.rules().map(\.id))
        let known = Set(USBKnownIdentity.all.map(\.usbID))
        #expect(ruled == known, "rules only: \(ruled.subtracting(known)), identities only: \(known.subtracting(ruled))")
        #expect(known.contains(USBKnownIdentity.usbID(vendorID: USBIdentity.vendorID, productID: USBIdentity.productID)))
    }

    @Test("every rule grants the seat's user (uaccess) and hapbridge's own group, never a distribution's")
    func accessWithoutRootOnEveryDistribution() throws {
        for rule in try Self.rules() {
            #expect(rule.line.contains("TAG+=\"uaccess\""), "\(rule.line)")
            #expect(rule.line.contains("GROUP=\"hapbridge\"") && rule.line.contains("MODE=\"0660\""), "\(rule.line)")
            #expect(!rule.line.contains("plugdev") && !rule.line.contains("dialout"), "\(rule.line)")
        }
    }

    @Test("Caterina's tty, and a sketch's the touch opens, keep ModemManager off (ID_MM_DEVICE_IGNORE)")
    func caterinaTTYIgnoredByModemManager() throws {
        let caterina = Set((USBKnownIdentity.identities(of: .caterinaBootloader) + USBKnownIdentity.identities(of: .arduinoSketch)).map(\.usbID))
        let ttys = try Self.rules().filter { caterina.contains($0.id) }
        #expect(ttys.count == caterina.count)
        for rule in ttys {
            #expect(rule.subsystem == "tty", "\(rule.line)")
            #expect(rule.line.contains("ENV{ID_MM_DEVICE_IGNORE}=\"1\""), "\(rule.line)")
        }
    }
}
