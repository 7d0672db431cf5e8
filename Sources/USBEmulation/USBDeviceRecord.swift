import Hex
import SimavrBridgeDevice

/// Where an emulated device sits on the bus and what the kernel would show of it: its
/// sysfs path, device node and umockdev record (sysfs attributes, udev properties,
/// the descriptors file, and one child per interface).
///
/// The numbering follows Linux: bus B's root hub is `usbB` (device 1), a device on
/// its port P is `B-P`, its interfaces `B-P:C.I`, its node /dev/bus/usb/BBB/DDD with
/// DDD its address (devnum), and its char device 189:((B-1)*128 + DDD-1). libusb reads
/// bus and port from these (`libusb_get_bus_number`, `libusb_get_port_numbers`), so a
/// board plugged into port 2 is `usb:1-2` to the host.
public struct USBDeviceRecord: Sendable, Equatable {
    public let bus: Int
    public let port: Int
    public let address: Int
    public let description: USBDeviceDescription
    /// bConfigurationValue the kernel chose (sysfs shows it).
    public let configuration: UInt8

    public init(bus: Int, port: Int, address: Int, description: USBDeviceDescription, configuration: UInt8) {
        self.bus = bus
        self.port = port
        self.address = address
        self.description = description
        self.configuration = configuration
    }

    /// "1-2": the kernel's name for the device, and the hardware address hosts use.
    public var busPort: String { "\(bus)-\(port)" }
    public var syspath: String { USBRootHubRecord(bus: bus).syspath + "/" + busPort }
    public var node: String { "/dev/bus/usb/\(threeDigits(bus))/\(threeDigits(address))" }
    public var interfaceSyspaths: [String] { interfaces.map { syspath + "/" + interfaceName($0) } }

    private var interfaces: [USBDeviceDescription.Interface] {
        (description.configuration(value: configuration)?.interfaces ?? []).filter { $0.alternateSetting == 0 }
    }

    private func interfaceName(_ i: USBDeviceDescription.Interface) -> String { "\(busPort):\(configuration).\(i.number)" }

    private var minor: Int { (bus - 1) * 128 + address - 1 }

    /// The record for `Testbed.add(record:)`: the device, then its interfaces.
    public var text: String {
        let d = description
        let config = d.configuration(value: configuration)
        let hex4 = { (v: UInt16) in Hex.digits(v, width: 4, case: .lower) }
        let hex2 = { (v: UInt8) in Hex.digits(v, width: 2, case: .lower) }
        // PRODUCT and TYPE are the kernel's uevent variables: hex without leading zeros.
        let product = "\(Hex.digits(d.vendorID, case: .lower))/\(Hex.digits(d.productID, case: .lower))/\(Hex.digits(d.bcdDevice, case: .lower))"
        let type = "\(d.deviceClass)/\(d.deviceSubclass)/\(d.deviceProtocol)"
        var lines = [
            "P: \(syspath.dropFirst(4))",
            "N: \(node.dropFirst(5))=\(Hex.bytes(d.sysfsDescriptors))",
            "E: SUBSYSTEM=usb",
            "E: DEVTYPE=usb_device",
            "E: DRIVER=usb",
            "E: DEVNAME=\(node)",
            "E: PRODUCT=\(product)",
            "E: TYPE=\(type)",
            "E: BUSNUM=\(threeDigits(bus))",
            "E: DEVNUM=\(threeDigits(address))",
            "E: MAJOR=189",
            "E: MINOR=\(minor)",
            "E: ID_BUS=usb",
            "E: ID_VENDOR_ID=\(hex4(d.vendorID))",
            "E: ID_MODEL_ID=\(hex4(d.productID))",
            "E: ID_REVISION=\(hex4(d.bcdDevice))",
            "E: ID_PATH=pci-0000:00:14.0-usb-0:\(port)",
            "E: ID_PATH_TAG=pci-0000_00_14_0-usb-0_\(port)",
            "E: ID_USB_INTERFACES=:\(interfaces.map { hex2($0.interfaceClass) + hex2($0.interfaceSubclass) + hex2($0.interfaceProtocol) }.joined(separator: ":")):",
        ]
        if let m = d.manufacturer { lines += ["E: ID_VENDOR=\(Self.udevName(m))"] }
        if let p = d.product { lines += ["E: ID_MODEL=\(Self.udevName(p))"] }
        if let s = d.serial {
            lines += [
                "E: ID_SERIAL_SHORT=\(Self.udevName(s))",
                "E: ID_SERIAL=\([d.manufacturer, d.product, s].compactMap { $0.map(Self.udevName) }.joined(separator: "_"))",
            ]
        }
        lines += [
            "A: authorized=1",
            "A: avoid_reset_quirk=0",
            "A: bConfigurationValue=\(configuration == 0 ? "" : String(configuration))",
            "A: bDeviceClass=\(hex2(d.deviceClass))",
            "A: bDeviceProtocol=\(hex2(d.deviceProtocol))",
            "A: bDeviceSubClass=\(hex2(d.deviceSubclass))",
            "A: bMaxPacketSize0=\(d.maxPacketSize0)",
            "A: bMaxPower=\(Int(config?.maxPower ?? 0) * 2)mA",
            "A: bNumConfigurations=\(d.configurations.count)",
            "A: bNumInterfaces=\(pad(Int(config?.interfaceCount ?? 0), 2))",
            "A: bcdDevice=\(hex4(d.bcdDevice))",
            "A: bmAttributes=\(hex2(config?.attributes ?? 0x80))",
            "A: busnum=\(bus)",
            "A: configuration=",
            "A: dev=189:\(minor)",
            "A: devnum=\(address)",
            "A: devpath=\(port)",
            "A: idProduct=\(hex4(d.productID))",
            "A: idVendor=\(hex4(d.vendorID))",
            "A: maxchild=0",
            "A: quirks=0x0",
            "A: removable=removable",
            "A: speed=\(d.speedMbps)",
            // One lane each way below USB 3.2 (lsusb -t reads them).
            "A: rx_lanes=1",
            "A: tx_lanes=1",
            "A: ltm_capable=no",
            "A: version=\(pad(Int(d.bcdUSB >> 8), 2)).\(Hex.digits(d.bcdUSB & 0xFF, width: 2, case: .lower))",
        ]
        lines += Self.endpointZeroAttributes(maxPacketSize: Int(d.maxPacketSize0))
        if let m = d.manufacturer { lines += ["A: manufacturer=\(m)"] }
        if let p = d.product { lines += ["A: product=\(p)"] }
        if let s = d.serial { lines += ["A: serial=\(s)"] }
        lines += ["H: descriptors=\(Hex.bytes(d.sysfsDescriptors))"]

        var paragraphs = [Self.sysfsText(lines).joined(separator: "\n")]
        for i in interfaces {
            let modalias =
                "usb:v\(hex4(d.vendorID).uppercased())p\(hex4(d.productID).uppercased())d\(hex4(d.bcdDevice).uppercased())"
                + "dc\(hex2(d.deviceClass).uppercased())dsc\(hex2(d.deviceSubclass).uppercased())dp\(hex2(d.deviceProtocol).uppercased())"
                + "ic\(hex2(i.interfaceClass).uppercased())isc\(hex2(i.interfaceSubclass).uppercased())ip\(hex2(i.interfaceProtocol).uppercased())in\(hex2(i.number).uppercased())"
            paragraphs.append(
                [
                    "P: \((syspath + "/" + interfaceName(i)).dropFirst(4))",
                    "E: SUBSYSTEM=usb",
                    "E: DEVTYPE=usb_interface",
                    "E: PRODUCT=\(product)",
                    "E: TYPE=\(type)",
                    "E: INTERFACE=\(i.interfaceClass)/\(i.interfaceSubclass)/\(i.interfaceProtocol)",
                    "E: MODALIAS=\(modalias)",
                    "A: authorized=1",
                    "A: bAlternateSetting=\(pad(Int(i.alternateSetting), 2))",
                    "A: bInterfaceClass=\(hex2(i.interfaceClass))",
                    "A: bInterfaceNumber=\(hex2(i.number))",
                    "A: bInterfaceProtocol=\(hex2(i.interfaceProtocol))",
                    "A: bInterfaceSubClass=\(hex2(i.interfaceSubclass))",
                    "A: bNumEndpoints=\(hex2(UInt8(truncatingIfNeeded: i.endpoints.count)))",
                    "A: modalias=\(modalias)",
                    "A: supports_autosuspend=1",
                ].map { Self.sysfsText([$0])[0] }.joined(separator: "\n")
                    + Self.sysfsText(i.endpoints.flatMap { Self.endpointAttributes($0, highSpeed: d.speedMbps == 480) }).map { "\n" + $0 }.joined())
        }
        return paragraphs.joined(separator: "\n\n") + "\n"
    }

    /// Text attributes end in a newline in sysfs (lsusb and libusb strip it), written
    /// `\n` in the record; an unconfigured device's bConfigurationValue is empty, as
    /// the kernel shows it.
    static func sysfsText(_ lines: [String]) -> [String] {
        lines.map { $0.hasPrefix("A: ") && $0 != "A: bConfigurationValue=" ? $0 + "\\n" : $0 }
    }

    /// An endpoint's `ep_XX` directory as the kernel makes it (drivers/usb/core/endpoint.c),
    /// as attributes of the device or interface that holds it; usb-devices reads them.
    static func endpointAttributes(_ e: USBDeviceDescription.Endpoint, highSpeed: Bool) -> [String] {
        let dir = "ep_\(Hex.digits(e.address, width: 2, case: .lower))"
        let type = ["Control", "Isoc", "Bulk", "Interrupt"][Int(e.transferType)]
        // The polling interval in time: bInterval ms for full-speed interrupt and isochronous
        // endpoints, 2^(bInterval-1) microframes of 125 µs at high speed; 0 for bulk and control.
        var microseconds = 0
        if e.transferType == 1 || e.transferType == 3, e.interval > 0 {
            microseconds = highSpeed ? (1 << (min(Int(e.interval), 16) - 1)) * 125 : Int(e.interval) * 1000
        }
        let interval = microseconds % 1000 == 0 ? "\(microseconds / 1000)ms" : "\(microseconds)us"
        return [
            "A: \(dir)/bEndpointAddress=\(Hex.digits(e.address, width: 2, case: .lower))",
            "A: \(dir)/bInterval=\(Hex.digits(e.interval, width: 2, case: .lower))",
            "A: \(dir)/bLength=07",
            "A: \(dir)/bmAttributes=\(Hex.digits(e.attributes, width: 2, case: .lower))",
            "A: \(dir)/direction=\(e.transferType == 0 ? "both" : e.isIn ? "in" : "out")",
            "A: \(dir)/interval=\(interval)",
            "A: \(dir)/type=\(type)",
            "A: \(dir)/wMaxPacketSize=\(Hex.digits(e.maxPacketSize, width: 4, case: .lower))",
        ]
    }

    /// The device's `ep_00`: endpoint 0, control, both directions.
    static func endpointZeroAttributes(maxPacketSize: Int) -> [String] {
        endpointAttributes(.init(address: 0, attributes: 0, maxPacketSize: maxPacketSize, interval: 0), highSpeed: false)
    }

    /// The bConfigurationValue attribute's contents for a configuration value.
    public static func configurationAttribute(_ value: UInt8) -> String { value == 0 ? "" : "\(value)\n" }

    /// udev's ID_VENDOR / ID_MODEL / ID_SERIAL form: spaces become underscores.
    static func udevName(_ s: String) -> String {
        String(s.map { $0 == " " ? "_" : $0 })
    }
}

private func threeDigits(_ n: Int) -> String { pad(n, 3, "0") }

/// Right-aligns like the kernel's "%2d" (or zero-pads with "0").
private func pad(_ n: Int, _ width: Int, _ fill: Character = " ") -> String {
    let s = String(n)
    return String(repeating: fill, count: max(0, width - s.count)) + s
}
