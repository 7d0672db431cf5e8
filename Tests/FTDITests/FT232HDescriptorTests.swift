import Foundation
import Testing

/// The emulated FT232H as the system sees it, through lsusb (usbutils) under the emulation.
@Suite("The emulated FT232H's USB identity", .serialized)
struct FT232HDescriptorTests {
    @Test("lsusb sees 0403:6014, bcdDevice 9.00, the serial given, one vendor interface with bulk IN 0x81 and OUT 0x02 of 512 bytes")
    func descriptors() throws {
        let run = try EmulatedFT232H.run(["--serial", "FTA1"], ["/usr/bin/lsusb", "-v", "-d", "0403:6014"])
        #expect(run.status == 0, "\(run)")
        let text = run.output
        #expect(text.contains("ID 0403:6014"), "\(run)")
        #expect(text.range(of: #"bcdDevice\s+9\.00"#, options: .regularExpression) != nil, "\(run)")
        #expect(text.range(of: #"iSerial\s+3 FTA1"#, options: .regularExpression) != nil, "\(run)")
        #expect(text.range(of: #"bNumInterfaces\s+1"#, options: .regularExpression) != nil, "\(run)")
        #expect(text.range(of: #"bEndpointAddress\s+0x81\s+EP 1 IN"#, options: .regularExpression) != nil, "\(run)")
        #expect(text.range(of: #"bEndpointAddress\s+0x02\s+EP 2 OUT"#, options: .regularExpression) != nil, "\(run)")
        #expect(text.components(separatedBy: "wMaxPacketSize     0x0200").count == 3, "both bulk endpoints 512 bytes: \(run)")
    }

    @Test("lsusb -t shows it at high speed (480M): its 512-byte bulk endpoints exist only there (USB 2.0 §5.8.3)")
    func highSpeed() throws {
        let run = try EmulatedFT232H.run([], ["/usr/bin/lsusb", "-t"])
        #expect(run.status == 0 && run.output.contains("Port 1: Dev 2, If 0, Class=, Driver=, 480M"), "\(run)")
    }

    // USB 2.0 9.6.2: "A high-speed capable device that has different device information
    // for full-speed and high-speed must have a Device Qualifier Descriptor"; the FT232H's
    // bulk endpoints are 64 bytes at full speed (5.8.3). A full-speed-only device (the
    // bridge board) answers a Request Error (WireTests, descriptor-device-qualifier).
    @Test("lsusb reads the high-speed FT232H's device qualifier (the full-speed view: bMaxPacketSize0 64, one configuration); the other-speed configuration has 64-byte bulk endpoints")
    func deviceQualifier() throws {
        let run = try EmulatedFT232H.run([], ["/usr/bin/lsusb", "-v", "-d", "0403:6014"])
        #expect(run.status == 0, "\(run)")
        let text = run.output
        let qualifier = try #require(text.range(of: "Device Qualifier (for other device speed):"), "\(run)")
        let after = String(text[qualifier.upperBound...].prefix(400))
        #expect(after.range(of: #"bcdUSB\s+2\.00"#, options: .regularExpression) != nil, "\(after)")
        #expect(after.range(of: #"bMaxPacketSize0\s+64"#, options: .regularExpression) != nil, "\(after)")
        #expect(after.range(of: #"bNumConfigurations\s+1"#, options: .regularExpression) != nil, "\(after)")
        #expect(!text.contains("Device Qualifier (for other device speed):\ncan't get"), "\(run)")
    }

    @Test("a --serial that --device ftdi:SERIAL could not name is a usage error (status 2) and nothing starts")
    func serialRule() throws {
        let run = try EmulatedFT232H.run(["--serial", "a b"], ["/bin/true"])
        #expect(run.status == 2, "\(run)")
        #expect(run.errors.contains("--serial: bad device address \"ftdi:a b\""), "\(run)")
    }
}
