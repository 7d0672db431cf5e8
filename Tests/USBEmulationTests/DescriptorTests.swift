import BridgeProtocol
import Foundation
import Testing

extension EmulatedBoards {
    /// What libusb's own client, lsusb, sees of an emulated board: the descriptors are
    /// read through umockdev from sysfs and from the device itself (strings, device
    /// status), so they are the board's answers — on the ELF, the firmware's own bytes.
    @Suite
    struct DescriptorTests {
        @Test("lsusb -v finds the board by VID:PID, with usb_identity.h's strings and two 64-byte bulk endpoints", arguments: Emulate.backings)
        func lsusbSeesTheBridgeBoard(_ backing: Emulate.Backing) throws {
            let id = String(format: "%04x:%04x", USBIdentity.vendorID, USBIdentity.productID)
            let run = try Emulate.bridge(backing, ["--serial", "LSUSB-1"], ["lsusb", "-v", "-d", id])
            #expect(run.status == 0, "\(run)")
            let text = run.output
            #expect(text.contains("ID \(id)"))
            #expect(text.contains(String(format: "idVendor           0x%04x", USBIdentity.vendorID)))
            #expect(text.contains(String(format: "idProduct          0x%04x", USBIdentity.productID)))
            #expect(line(text, "iManufacturer").hasSuffix(USBIdentity.manufacturer))
            #expect(line(text, "iProduct").hasSuffix(USBIdentity.product))
            // PROTOCOL.md, Board identity: "HELLO_REPLY and the USB iSerialNumber string
            // descriptor carry the same serial" — the one the emulation put in the EEPROM.
            #expect(line(text, "iSerial").hasSuffix("LSUSB-1"))
            #expect(line(text, "bInterfaceClass").contains(String(USBIdentity.interfaceClass)))
            #expect(text.contains(String(format: "bEndpointAddress     0x%02x  EP %d IN", USBIdentity.bulkIn, USBIdentity.bulkIn & 0x0F)))
            #expect(text.contains(String(format: "bEndpointAddress     0x%02x  EP %d OUT", USBIdentity.bulkOut, USBIdentity.bulkOut)))
            #expect(text.components(separatedBy: "Transfer Type            Bulk").count - 1 == 2)
            #expect(text.components(separatedBy: String(format: "wMaxPacketSize     0x%04x", USBIdentity.bulkPacketSize)).count - 1 == 2)
            // GET_STATUS goes to the device: a bus-powered board without remote wakeup.
            #expect(text.contains("Device Status:     0x0000"))
        }

        @Test("The device descriptor lsusb reads is usb_identity.h's, byte for byte", arguments: Emulate.backings)
        func theDeviceDescriptorIsTheFirmwares(_ backing: Emulate.Backing) throws {
            let d = USBIdentity.deviceDescriptor
            let run = try Emulate.bridge(backing, [], ["lsusb", "-v", "-d", String(format: "%04x:%04x", USBIdentity.vendorID, USBIdentity.productID)])
            #expect(run.status == 0, "\(run)")
            #expect(line(run.output, "bcdUSB").hasSuffix(String(format: "%x.%02x", d[3], d[2])))
            #expect(line(run.output, "bcdDevice").hasSuffix(String(format: "%x.%02x", d[13], d[12])))
            #expect(line(run.output, "bMaxPacketSize0").hasSuffix(String(d[7])))
            #expect(line(run.output, "bNumConfigurations").hasSuffix(String(d[17])))
        }

        /// The first line holding `field`, trimmed.
        func line(_ text: String, _ field: String) -> String {
            text.split(separator: "\n").first { $0.contains(field) }.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
    }
}
