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

    /// "1-2.3": the port, as `lsusb -t` and `usb:BUS-PORT` name it.
    public var portPath: String { DeviceAddress.portPath(bus: busNumber, ports: portNumbers) }

    /// The /dev node libusb opens (what a udev rule grants access to).
    public var deviceNode: String {
        "/dev/bus/usb/" + threeDigits(busNumber) + "/" + threeDigits(deviceAddress)
    }

    public var description: String {
        "bridge board at usb:\(portPath)" + (serialNumber.map { " (serial \($0))" } ?? "")
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
private func threeDigits(_ value: UInt8) -> String {
    let digits = "\(value)"
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
}

/// Finds bridge boards on USB by the VID:PID of `usb_identity.h`.
public enum USBBridgeDiscovery {
    /// Every bridge board plugged in now, in bus/port order.
    public static func boards(in context: USBContext) throws(LibUSBError) -> [USBBridgeBoard] {
        var found: [USBBridgeBoard] = []
        for device in try context.devices() {
            guard let d = try? device.descriptor(), d.vendorID == USBIdentity.vendorID, d.productID == USBIdentity.productID
            else { continue }
            var board = USBBridgeBoard(
                busNumber: device.busNumber, portNumbers: device.portNumbers, deviceAddress: device.address, serialNumber: nil,
                bcdDevice: d.bcdDevice, openError: nil)
            do {
                let handle = try device.open()
                board.serialNumber = try? handle.string(at: d.serialNumberIndex)
            } catch {
                board.openError = error
            }
            found.append(board)
        }
        return found.sorted { a, b in
            a.busNumber != b.busNumber ? a.busNumber < b.busNumber : a.portNumbers.lexicographicallyPrecedes(b.portNumbers)
        }
    }

    /// The listed device behind a discovered board (for opening it).
    static func device(for board: USBBridgeBoard, in context: USBContext) throws(LibUSBError) -> USBDevice? {
        try context.devices().first { $0.busNumber == board.busNumber && $0.portNumbers == board.portNumbers }
    }
}
