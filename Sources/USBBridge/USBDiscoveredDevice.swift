import BridgeProtocol
import DeviceInterface
import LibUSB

/// A device of a known identity (`USBKnownIdentity`) as one enumeration found it:
/// its port (its key), what its descriptors say, and the serial string when it has
/// one and could be opened.
public struct USBDiscoveredDevice: Sendable, Equatable, CustomStringConvertible {
    public var port: USBPort
    /// The device number on the bus (a new one on every enumeration, so a change of
    /// identity, or a replug, always shows here).
    public var deviceAddress: UInt8
    public var identity: USBKnownIdentity
    public var bcdDevice: UInt16
    /// From the serial-number string descriptor; nil when it has none, could not be
    /// opened, or discovery was asked to leave it to whoever opens the device next.
    public var serialNumber: String?
    /// Why the device could not be opened to read its serial, if it could not.
    public var openError: LibUSBError?
    /// The listed device: what opening it later reuses instead of enumerating again.
    var listing: USBListing?

    public var kind: USBDeviceKind { identity.kind }

    /// The /dev node libusb opens (what a udev rule grants access to).
    public var deviceNode: String { "/dev/bus/usb/" + threeDigits(port.bus) + "/" + threeDigits(deviceAddress) }

    /// Why it could not be opened, in a user's terms (nil when it could, or was not tried).
    public var openFailure: DeviceError? {
        openError.map { USBBridgeTransport.deviceError($0, node: deviceNode, port: port, what: "the \(identity.name)") }
    }

    public init(
        port: USBPort, deviceAddress: UInt8, identity: USBKnownIdentity, bcdDevice: UInt16, serialNumber: String?,
        openError: LibUSBError?
    ) {
        self.port = port
        self.deviceAddress = deviceAddress
        self.identity = identity
        self.bcdDevice = bcdDevice
        self.serialNumber = serialNumber
        self.openError = openError
    }

    /// The bridge board this is, when it is the bridge firmware.
    public var bridgeBoard: USBBridgeBoard? {
        guard kind == .bridgeFirmware else { return nil }
        var board = USBBridgeBoard(
            busNumber: port.bus, portNumbers: port.ports, deviceAddress: deviceAddress, serialNumber: serialNumber,
            bcdDevice: bcdDevice, openError: openError)
        board.listing = listing
        return board
    }

    public var description: String {
        "\(identity.name) (\(identity.usbID)) at usb:\(port.path)" + (serialNumber.map { ", serial \($0)" } ?? "")
    }

    /// Equal when enumeration saw the same thing (the libusb objects behind it aside).
    public static func == (a: Self, b: Self) -> Bool {
        a.port == b.port && a.deviceAddress == b.deviceAddress && a.identity == b.identity && a.bcdDevice == b.bcdDevice
            && a.serialNumber == b.serialNumber && a.openError == b.openError
    }
}

/// What enumeration holds of a device beyond its record: the listed libusb device,
/// so opening it later needs no second enumeration.
final class USBListing: Sendable {
    let device: USBDevice
    init(device: USBDevice) { self.device = device }
}
