import Hex
import SimavrBridgeDevice

/// The root hub of the emulated bus, as the kernel shows a USB 2.0 root hub: device 1
/// of bus B (`usbB`), Linux Foundation's 1d6b:0002, class hub, one interface with its
/// interrupt IN endpoint, behind the host controller the boards' syspaths name.
/// `lsusb -t` and `usb-devices` start from `/sys/bus/usb/devices/usbB` and find every
/// board as a child of it; without it they print nothing or fail.
///
/// It is sysfs only: no client talks to it (its node exists, as libusb lists every
/// device with one, but has no ioctl handler). Its strings say what it is: the
/// emulation's, not a kernel's.
struct USBRootHubRecord: Sendable {
    let bus: Int

    /// The host controller the bus hangs off (a PCI function, as on an ordinary PC).
    static let controllerSyspath = "/sys/devices/pci0000:00/0000:00:14.0"
    /// The driver `lsusb -t` names for the bus: the host controller's.
    static let controllerDriver = "hapbridge-emulate"
    /// Ports on the hub: one for each USB address a board can take.
    static let ports = BridgeEmulation.addresses.count

    var syspath: String { Self.controllerSyspath + "/usb\(bus)" }
    var node: String { "/dev/bus/usb/" + threeDigits(bus) + "/001" }

    static let manufacturer = "hapbridge emulate"
    static let product = "Emulated USB 2.0 root hub"

    /// Linux's USB 2.0 root hub descriptors (drivers/usb/core/hcd.c): bcdUSB 2.00, hub
    /// class with a single TT, 64-byte endpoint 0, 1d6b:0002; bcdDevice is this
    /// emulation's 1.00 (a kernel puts its version there). Strings 3, 2, 1.
    static let deviceDescriptor: [UInt8] = [18, 1, 0x00, 0x02, 9, 0, 1, 64, 0x6B, 0x1D, 0x02, 0x00, 0x00, 0x01, 3, 2, 1, 1]
    /// One configuration: self powered, remote wakeup; the hub interface; endpoint 0x81,
    /// interrupt, 4 bytes, bInterval 12 (256 ms at high speed).
    static let configurationDescriptor: [UInt8] = [
        9, 2, 25, 0, 1, 1, 0, 0xE0, 0,
        9, 4, 0, 0, 1, 9, 0, 0, 0,
        7, 5, 0x81, 3, 4, 0, 12,
    ]
    static let statusEndpoint = USBDeviceDescription.Endpoint(address: 0x81, attributes: 3, maxPacketSize: 4, interval: 12)

    /// The records for `Testbed.add(record:)`: the host controller (for its driver
    /// link), the hub, its interface.
    var text: String {
        let descriptors = Hex.bytes(Self.deviceDescriptor + Self.configurationDescriptor)
        let controller = [
            "P: \(Self.controllerSyspath.dropFirst(4))",
            "E: SUBSYSTEM=pci",
            "E: DRIVER=\(Self.controllerDriver)",
            "L: driver=../../../bus/pci/drivers/\(Self.controllerDriver)",
        ]
        let hub =
            [
                "P: \(syspath.dropFirst(4))",
                "N: \(node.dropFirst(5))=\(descriptors)",
                "E: SUBSYSTEM=usb",
                "E: DEVTYPE=usb_device",
                "E: DRIVER=usb",
                "E: DEVNAME=\(node)",
                "E: PRODUCT=1d6b/2/100",
                "E: TYPE=9/0/1",
                "E: BUSNUM=\(threeDigits(bus))",
                "E: DEVNUM=001",
                "E: MAJOR=189",
                "E: MINOR=\((bus - 1) * 128)",
            ]
            + USBDeviceRecord.sysfsText(
                [
                    "A: authorized=1",
                    "A: authorized_default=1",
                    "A: avoid_reset_quirk=0",
                    "A: bConfigurationValue=1",
                    "A: bDeviceClass=09",
                    "A: bDeviceProtocol=01",
                    "A: bDeviceSubClass=00",
                    "A: bMaxPacketSize0=64",
                    "A: bMaxPower=0mA",
                    "A: bNumConfigurations=1",
                    "A: bNumInterfaces= 1",
                    "A: bcdDevice=0100",
                    "A: bmAttributes=e0",
                    "A: busnum=\(bus)",
                    "A: configuration=",
                    "A: dev=189:\((bus - 1) * 128)",
                    "A: devnum=1",
                    "A: devpath=0",
                    "A: idProduct=0002",
                    "A: idVendor=1d6b",
                    "A: interface_authorized_default=1",
                    "A: ltm_capable=no",
                    "A: manufacturer=\(Self.manufacturer)",
                    "A: maxchild=\(Self.ports)",
                    "A: product=\(Self.product)",
                    "A: quirks=0x0",
                    "A: removable=unknown",
                    "A: rx_lanes=1",
                    "A: serial=\(Self.controllerSyspath.split(separator: "/").last ?? "")",
                    "A: speed=480",
                    "A: tx_lanes=1",
                    "A: version= 2.00",
                ] + USBDeviceRecord.endpointZeroAttributes(maxPacketSize: 64)) + ["H: descriptors=\(descriptors)"]
        let interface =
            [
                "P: \(syspath.dropFirst(4))/\(bus)-0:1.0",
                "E: SUBSYSTEM=usb",
                "E: DEVTYPE=usb_interface",
                "E: DRIVER=hub",
                "E: INTERFACE=9/0/0",
                "L: driver=../../../../../bus/usb/drivers/hub",
            ]
            + USBDeviceRecord.sysfsText(
                [
                    "A: authorized=1",
                    "A: bAlternateSetting= 0",
                    "A: bInterfaceClass=09",
                    "A: bInterfaceNumber=00",
                    "A: bInterfaceProtocol=00",
                    "A: bInterfaceSubClass=00",
                    "A: bNumEndpoints=01",
                ] + USBDeviceRecord.endpointAttributes(Self.statusEndpoint, highSpeed: true))
        return [controller, hub, interface].map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }
}

private func threeDigits(_ n: Int) -> String {
    let s = String(n)
    return String(repeating: "0", count: max(0, 3 - s.count)) + s
}
