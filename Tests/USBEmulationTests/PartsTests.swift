import BridgeProtocol
import Testing

@testable import USBEmulation

/// The emulation's parts that need no testbed: descriptor parsing, the sysfs record,
/// the chapter-9 answers of the core board, the control protocol.
struct DescriptorParsingTests {
    @Test("usb_identity.h's configuration parses into one vendor interface with bulk IN and OUT of 64 bytes")
    func identityParses() throws {
        let d = try USBDeviceDescription(
            device: USBIdentity.deviceDescriptor, configurations: [USBIdentity.configurationDescriptor], manufacturer: nil,
            product: nil, serial: nil)
        #expect(d.vendorID == USBIdentity.vendorID && d.productID == USBIdentity.productID)
        let config = try #require(d.configurations.first)
        #expect(config.value == USBIdentity.configurationValue)
        #expect(config.interfaces.map(\.interfaceClass) == [USBIdentity.interfaceClass])
        #expect(config.interfaces.first?.endpoints.map(\.address) == [USBIdentity.bulkIn, USBIdentity.bulkOut])
        #expect(config.interfaces.first?.endpoints.allSatisfy { $0.maxPacketSize == USBIdentity.bulkPacketSize && $0.transferType == 2 } == true)
        #expect(d.endpoint(USBIdentity.bulkIn)?.interface == USBIdentity.interfaceNumber)
        #expect(d.sysfsDescriptors == USBIdentity.deviceDescriptor + USBIdentity.configurationDescriptor)
    }

    @Test("A configuration descriptor whose wTotalLength disagrees with its bytes is refused, naming the rule")
    func badTotalLength() {
        var bytes = USBIdentity.configurationDescriptor
        bytes.removeLast()
        #expect {
            _ = try USBDeviceDescription(device: USBIdentity.deviceDescriptor, configurations: [bytes], manufacturer: nil, product: nil, serial: nil)
        } throws: { error in
            "\(error)".contains("configuration descriptor") && "\(error)".contains("wTotalLength")
        }
    }

    @Test("A device descriptor announcing more configurations than were read is refused")
    func configurationCount() {
        var device = USBIdentity.deviceDescriptor
        device[17] = 2
        #expect(throws: USBDescriptorError.self) {
            _ = try USBDeviceDescription(device: device, configurations: [USBIdentity.configurationDescriptor], manufacturer: nil, product: nil, serial: nil)
        }
    }

    @Test("String descriptors decode from UTF-16LE")
    func strings() throws {
        let bytes = try #require(USBIdentity.stringDescriptor(USBIdentity.product))
        #expect(try USBDeviceDescription.text(ofStringDescriptor: bytes) == USBIdentity.product)
        #expect(throws: USBDescriptorError.self) { try USBDeviceDescription.text(ofStringDescriptor: [5, 3, 65, 0]) }
    }
}

struct DeviceRecordTests {
    func record(configuration: UInt8 = USBIdentity.configurationValue) throws -> USBDeviceRecord {
        let d = try USBDeviceDescription(
            device: USBIdentity.deviceDescriptor, configurations: [USBIdentity.configurationDescriptor],
            manufacturer: USBIdentity.manufacturer, product: USBIdentity.product, serial: "REC-1")
        return USBDeviceRecord(bus: 1, port: 2, address: 5, description: d, configuration: configuration)
    }

    @Test("Port 2 of bus 1 is the kernel's 1-2, its node /dev/bus/usb/001/005, its char device 189:4, its interface 1-2:1.0")
    func naming() throws {
        let r = try record()
        #expect(r.busPort == "1-2")
        #expect(r.syspath.hasSuffix("/usb1/1-2"))
        #expect(r.node == "/dev/bus/usb/001/005")
        #expect(r.interfaceSyspaths == [r.syspath + "/1-2:1.0"])
        let text = r.text
        #expect(text.contains("E: MINOR=4\n"))
        #expect(text.contains("A: dev=189:4\\n\n"))
        #expect(text.contains("N: bus/usb/001/005="))
    }

    @Test("The record carries the descriptors (upper-case hex, as umockdev insists) and newline-terminated attributes")
    func attributes() throws {
        let text = try record().text
        let hex = (USBIdentity.deviceDescriptor + USBIdentity.configurationDescriptor).map { String($0, radix: 16, uppercase: true) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(text.contains("H: descriptors=\(hex)\n"))
        #expect(text.contains("A: busnum=1\\n\n"))
        #expect(text.contains("A: devnum=5\\n\n"))
        #expect(text.contains("A: devpath=2\\n\n"))
        #expect(text.contains("A: serial=REC-1\\n\n"))
        #expect(text.contains("A: bConfigurationValue=\(USBIdentity.configurationValue)\\n\n"))
        #expect(text.contains("E: ID_SERIAL_SHORT=REC-1\n"))
    }

    @Test("An unconfigured device has an empty bConfigurationValue, as the kernel shows it")
    func unconfigured() throws {
        #expect(try record(configuration: 0).text.contains("A: bConfigurationValue=\n"))
    }
}

struct StandardRequestTests {
    func device() throws -> StandardRequests {
        try StandardRequests(
            deviceDescriptor: USBIdentity.deviceDescriptor, configurationDescriptor: USBIdentity.configurationDescriptor,
            strings: [[4, 3, 0x09, 0x04], USBIdentity.stringDescriptor("S") ?? []])
    }

    @Test("GET_DESCRIPTOR answers at most wLength bytes, the whole descriptor when more is asked")
    func descriptorLengths() throws {
        var d = try device()
        #expect(d.handle(USBSetupPacket(requestType: 0x80, request: 6, value: 0x0100, length: 64), data: []) == .done(USBIdentity.deviceDescriptor))
        #expect(d.handle(USBSetupPacket(requestType: 0x80, request: 6, value: 0x0100, length: 8), data: []) == .done(Array(USBIdentity.deviceDescriptor.prefix(8))))
    }

    @Test("What the firmware does not support STALLs: vendor requests, unknown strings, other configurations")
    func stalls() throws {
        var d = try device()
        #expect(d.handle(USBSetupPacket(requestType: 0xC0, request: 1, length: 4), data: []) == .stall)
        #expect(d.handle(USBSetupPacket(requestType: 0x80, request: 6, value: 0x0305, length: 255), data: []) == .stall)
        #expect(d.handle(USBSetupPacket(requestType: 0x00, request: 9, value: 2), data: []) == .stall)
    }

    @Test("SET_FEATURE(ENDPOINT_HALT) halts a bulk endpoint until CLEAR_FEATURE; GET_STATUS reports it")
    func halt() throws {
        var d = try device()
        _ = d.handle(USBSetupPacket(requestType: 0x00, request: 9, value: UInt16(USBIdentity.configurationValue)), data: [])
        let status = USBSetupPacket(requestType: 0x82, request: 0, index: UInt16(USBIdentity.bulkIn), length: 2)
        #expect(d.handle(USBSetupPacket(requestType: 0x02, request: 3, index: UInt16(USBIdentity.bulkIn)), data: []) == .done([]))
        #expect(d.halted.contains(USBIdentity.bulkIn))
        #expect(d.handle(status, data: []) == .done([1, 0]))
        #expect(d.handle(USBSetupPacket(requestType: 0x02, request: 1, index: UInt16(USBIdentity.bulkIn)), data: []) == .done([]))
        #expect(d.handle(status, data: []) == .done([0, 0]))
    }
}

struct ControlCommandTests {
    @Test("Control lines parse into commands; BOARD is optional")
    func parses() throws {
        #expect(try ControlCommand(parsing: "list") == .list)
        #expect(try ControlCommand(parsing: "unplug") == .unplug(nil))
        #expect(try ControlCommand(parsing: "unplug 1-2") == .unplug("1-2"))
        #expect(try ControlCommand(parsing: "detach HB0001") == .detach("HB0001"))
        #expect(try ControlCommand(parsing: "replug  SER-9") == .replug("SER-9"))
        #expect(try ControlCommand(parsing: "add") == .add(serial: nil))
        #expect(try ControlCommand(parsing: "add --serial X-1") == .add(serial: "X-1"))
    }

    @Test("A line that is no command is refused with the list of commands")
    func refuses() {
        #expect { _ = try ControlCommand(parsing: "unplug 1-1 1-2") } throws: { "\($0)".contains("at most one BOARD") }
        #expect { _ = try ControlCommand(parsing: "eject") } throws: { "\($0)".contains("list, unplug [BOARD]") }
    }
}

struct DefaultSerialTests {
    @Test("A board without a serial gets its port's number, or the next one free")
    func defaults() {
        #expect(BridgeEmulation.serials(given: [], count: 2) == ["0001", "0002"])
        #expect(BridgeEmulation.serials(given: ["TWO-A"], count: 2) == ["TWO-A", "0002"])
        #expect(BridgeEmulation.serials(given: ["0002"], count: 2) == ["0002", "0003"])
    }
}
