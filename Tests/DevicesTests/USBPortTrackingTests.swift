import BridgeProtocol
import Testing
@testable import USBBridge

/// Discovery's records keyed by port: a board that leaves as the bridge firmware and
/// comes back as its bootloader (or an FT232H, or itself after a replug) is the same
/// port, whatever it enumerates as. The emulation cannot change a board's VID:PID, so
/// the rule is pinned here over records; `ListTests` shows the port surviving a replug
/// through libusb.
@Suite("USB devices by port, across identities")
struct USBPortTrackingTests {
    static let port = USBPort(bus: 1, ports: [2])

    static func device(_ vid: UInt16, _ pid: UInt16, address: UInt8, port: USBPort = port, serial: String? = nil) throws -> USBDiscoveredDevice {
        let identity = try #require(USBKnownIdentity.lookup(vendorID: vid, productID: pid))
        return USBDiscoveredDevice(port: port, deviceAddress: address, identity: identity, bcdDevice: 0x0100, serialNumber: serial, openError: nil)
    }

    @Test("each known VID:PID has its kind: the bridge firmware from usb_identity.h, Caterina, Atmel DFU, a board's Arduino sketch, FT232H; others are not listed")
    func kindsByIdentity() {
        #expect(USBKnownIdentity.lookup(vendorID: USBIdentity.vendorID, productID: USBIdentity.productID)?.kind == .bridgeFirmware)
        #expect(USBKnownIdentity.lookup(vendorID: 0x2341, productID: 0x0036)?.kind == .caterinaBootloader)
        #expect(USBKnownIdentity.lookup(vendorID: 0x2341, productID: 0x0037)?.kind == .caterinaBootloader)
        #expect(USBKnownIdentity.lookup(vendorID: 0x1B4F, productID: 0x9205)?.kind == .caterinaBootloader)
        #expect(USBKnownIdentity.lookup(vendorID: 0x03EB, productID: 0x2FF4)?.kind == .atmelDFUBootloader)
        #expect(USBKnownIdentity.lookup(vendorID: 0x0403, productID: 0x6014)?.kind == .ft232h)
        // A Leonardo or Pro Micro running a sketch: listed, so plain `flash` can touch
        // it into its Caterina (1200 baud); another Arduino's VID:PID is not listed.
        #expect(USBKnownIdentity.lookup(vendorID: 0x2341, productID: 0x8036)?.kind == .arduinoSketch)
        #expect(USBKnownIdentity.lookup(vendorID: 0x1B4F, productID: 0x9206)?.kind == .arduinoSketch)
        #expect(USBKnownIdentity.lookup(vendorID: 0x2341, productID: 0x0043) == nil)
        #expect(Set(USBKnownIdentity.all.map(\.kind)) == Set(USBDeviceKind.allCases))
        #expect(USBKnownIdentity.lookup(vendorID: 0x03EB, productID: 0x2FF4)?.usbID == "03eb:2ff4")
        // One table: no VID:PID twice.
        #expect(Set(USBKnownIdentity.all.map(\.usbID)).count == USBKnownIdentity.all.count)
    }

    @Test("firmware → bootloader → new firmware on one port: the port keeps its key, each change is one entry under it")
    func portKeepsItsKeyAcrossIdentities() throws {
        let firmware = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 5, serial: "BENCH-1")
        let other = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 6, port: USBPort(bus: 1, ports: [3]), serial: "BENCH-2")
        var table = USBPortTable([firmware, other])
        #expect(table[Self.port]?.kind == .bridgeFirmware)

        // The jump: the firmware leaves (an enumeration in the gap sees the port empty) ...
        let gone = table.update([other])
        #expect(gone == [USBPortChange(port: Self.port, before: firmware, after: nil)])
        // ... and Caterina arrives on the same port, under its own VID:PID and a new device number.
        let caterina = try Self.device(0x2341, 0x0036, address: 7)
        let arrived = table.update([caterina, other])
        #expect(arrived == [USBPortChange(port: Self.port, before: nil, after: caterina)])
        #expect(table.ports == [Self.port, USBPort(bus: 1, ports: [3])])

        // Seen without the gap (enumerations further apart): one change of kind under the same key.
        let back = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 8, serial: "BENCH-1")
        let changed = table.update([back, other])
        #expect(changed.count == 1 && changed[0].port == Self.port && changed[0].isChangeOfKind)
        #expect(changed[0].description == "usb:1-2: caterina-bootloader #7 → bridge-firmware #8")
        // The other board never changed, so it is never reported.
        #expect(table.update([back, other]).isEmpty)
    }

    @Test("a replug under the same identity is a change too (a new device number), not the same enumeration")
    func replugIsAChange() throws {
        let before = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 5, serial: "A")
        var table = USBPortTable([before])
        let after = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 9, serial: "A")
        let changes = table.update([after])
        #expect(changes.count == 1 && !changes[0].isChangeOfKind && changes[0].after?.deviceAddress == 9)
    }

    @Test("following a port: the successor is a wanted kind with another device number; the device it replaces is not")
    func successorRule() throws {
        let firmware = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 5)
        let caterina = try Self.device(0x2341, 0x0036, address: 6)
        let dfu = try Self.device(0x03EB, 0x2FF4, address: 6)
        let bootloaders: Set<USBDeviceKind> = [.caterinaBootloader, .atmelDFUBootloader]
        #expect(!USBDiscovery.isSuccessor(firmware, kinds: bootloaders, replacing: 5))
        #expect(USBDiscovery.isSuccessor(caterina, kinds: bootloaders, replacing: 5))
        #expect(USBDiscovery.isSuccessor(dfu, kinds: bootloaders, replacing: 5))
        // Back to the firmware after flashing: the same kind as before, but a new enumeration.
        let reflashed = try Self.device(USBIdentity.vendorID, USBIdentity.productID, address: 7)
        #expect(USBDiscovery.isSuccessor(reflashed, kinds: [.bridgeFirmware], replacing: 5))
        #expect(!USBDiscovery.isSuccessor(firmware, kinds: [.bridgeFirmware], replacing: 5))
    }

    @Test("ports sort by bus, then hub chain (1-2 < 1-2.1 < 1-10 < 2-1), and name themselves as addresses do")
    func portOrder() {
        let ports = [USBPort(bus: 2, ports: [1]), USBPort(bus: 1, ports: [10]), USBPort(bus: 1, ports: [2, 1]), USBPort(bus: 1, ports: [2])]
        #expect(ports.sorted().map(\.path) == ["1-2", "1-2.1", "1-10", "2-1"])
        #expect(USBPort(bus: 1, ports: [2, 3]).address.description == "usb:1-2.3")
    }
}
