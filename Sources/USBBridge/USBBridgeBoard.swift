import BridgeProtocol
import DeviceInterface
import LibUSB

/// A bridge board as USB enumeration finds it, before any session: where it is and
/// what its descriptors say. Finding it opens it only to read the serial number's
/// string descriptor; no frame is sent.
public struct USBBridgeBoard: Sendable, Equatable, CustomStringConvertible {
    public var busNumber: UInt8
    public var portNumbers: [UInt8]
    /// The device number on the bus (changes on every re-plug).
    public var deviceAddress: UInt8
    /// From the serial-number string descriptor; nil when the board could not be opened.
    public var serialNumber: String?
    /// bcdDevice: the firmware version as BCD.
    public var bcdDevice: UInt16
    /// Why the board could not be opened, if it could not.
    public var openError: LibUSBError?
    /// What discovery holds of it (the listed device): opening the board reuses it
    /// instead of enumerating again.
    var listing: USBListing? = nil

    /// Its socket: the key that stays when the board re-enumerates as something else.
    public var port: USBPort { USBPort(bus: busNumber, ports: portNumbers) }

    /// "1-2.3": the port, as `lsusb -t` and `usb:BUS-PORT` name it.
    public var portPath: String { DeviceAddress.portPath(bus: busNumber, ports: portNumbers) }

    /// The /dev node libusb opens (what a udev rule grants access to).
    public var deviceNode: String {
        "/dev/bus/usb/" + threeDigits(busNumber) + "/" + threeDigits(deviceAddress)
    }

    public var description: String {
        "bridge board at usb:\(portPath)" + (serialNumber.map { " (serial \($0))" } ?? "")
    }

    /// Equal when enumeration saw the same thing (the libusb objects behind it aside).
    public static func == (a: Self, b: Self) -> Bool {
        a.busNumber == b.busNumber && a.portNumbers == b.portNumbers && a.deviceAddress == b.deviceAddress
            && a.serialNumber == b.serialNumber && a.bcdDevice == b.bcdDevice && a.openError == b.openError
    }

    /// Whether `address` names this board.
    public func matches(_ selector: DeviceAddress.USBSelector) -> Bool {
        switch selector {
        case .any: true
        case .serial(let s): serialNumber == s
        case .port(let bus, let ports): bus == busNumber && ports == portNumbers
        }
    }
}

/// Three decimal digits, zero padded (USB bus and device numbers in /dev paths).
func threeDigits(_ value: UInt8) -> String {
    let digits = "\(value)"
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
}

/// The bridge boards among what discovery finds (`USBDiscovery` lists every known identity).
public enum USBBridgeDiscovery {
    /// Every bridge board plugged in now, in bus/port order: one enumeration, each
    /// board opened once to read its serial.
    public static func boards(in context: USBContext) throws(LibUSBError) -> [USBBridgeBoard] {
        try USBDiscovery.devices(in: context, kinds: [.bridgeFirmware]).compactMap(\.bridgeBoard)
    }

    /// The listed device behind a discovered board (for opening it): the one discovery
    /// listed when it is there, else one enumeration (no device opened).
    static func device(for board: USBBridgeBoard, in context: USBContext) throws(LibUSBError) -> USBDevice? {
        if let listed = board.listing?.device { return listed }
        return try context.devices().first { $0.busNumber == board.busNumber && $0.portNumbers == board.portNumbers }
    }
}
