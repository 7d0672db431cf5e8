import BridgeProtocol

/// What a USB device on a board's port is, by its VID:PID: the bridge firmware, one
/// of the bootloaders a bridge board can be sent to (`hapbridge flash` follows the
/// board there), or the FT232H that will host the firmware core over MPSSE.
public enum USBDeviceKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The project's firmware (`usb_identity.h`): frames over a vendor interface.
    case bridgeFirmware = "bridge-firmware"
    /// Arduino's Caterina (AVR109 over CDC-ACM), on Leonardo, Micro and Pro Micro boards.
    case caterinaBootloader = "caterina-bootloader"
    /// Atmel/Microchip's factory DFU bootloader (FLIP) of a bare ATmega32U4.
    case atmelDFUBootloader = "atmel-dfu-bootloader"
    /// FTDI's FT232H (USB to MPSSE: I2C from the host).
    case ft232h = "ft232h"

    /// The stable word `list` prints and `list --json` writes.
    public var description: String { rawValue }

    /// Whether the device speaks the bridge protocol (HELLO and frames).
    public var speaksBridgeProtocol: Bool { self == .bridgeFirmware }
}

/// One VID:PID hapbridge recognises, and what it is.
public struct USBKnownIdentity: Sendable, Equatable {
    public var vendorID: UInt16
    public var productID: UInt16
    public var kind: USBDeviceKind
    /// What a user would call it ("Arduino Leonardo bootloader").
    public var name: String

    /// "2341:0036", as lsusb writes it.
    public var usbID: String { USBKnownIdentity.usbID(vendorID: vendorID, productID: productID) }

    public static func usbID(vendorID: UInt16, productID: UInt16) -> String { hex4(vendorID) + ":" + hex4(productID) }

    /// Every identity discovery lists, the one table of them. The bridge's comes from
    /// `usb_identity.h`; the bootloaders' are Arduino's, SparkFun's and Atmel's own, as
    /// the team's reference notes on the bootloaders give them (checked there, not on
    /// hardware: a Leonardo's Caterina enumerates as 2341:0036, its sketch as
    /// 2341:8036); the FT232H's is FTDI's factory default (0403:6014), which an
    /// EEPROM can change.
    public static let all: [USBKnownIdentity] = [
        USBKnownIdentity(vendorID: USBIdentity.vendorID, productID: USBIdentity.productID, kind: .bridgeFirmware, name: "hapbridge bridge firmware"),
        USBKnownIdentity(vendorID: 0x2341, productID: 0x0036, kind: .caterinaBootloader, name: "Arduino Leonardo bootloader (Caterina)"),
        USBKnownIdentity(vendorID: 0x2341, productID: 0x0037, kind: .caterinaBootloader, name: "Arduino Micro bootloader (Caterina)"),
        USBKnownIdentity(vendorID: 0x1B4F, productID: 0x9205, kind: .caterinaBootloader, name: "SparkFun Pro Micro bootloader (Caterina)"),
        USBKnownIdentity(vendorID: 0x03EB, productID: 0x2FF4, kind: .atmelDFUBootloader, name: "Atmel DFU bootloader (ATmega32U4)"),
        USBKnownIdentity(vendorID: 0x0403, productID: 0x6014, kind: .ft232h, name: "FTDI FT232H"),
    ]

    /// The identity with this VID:PID, if hapbridge knows it.
    public static func lookup(vendorID: UInt16, productID: UInt16) -> USBKnownIdentity? {
        all.first { $0.vendorID == vendorID && $0.productID == productID }
    }

    /// The VID:PIDs of one kind (for hotplug filters and tests).
    public static func identities(of kind: USBDeviceKind) -> [USBKnownIdentity] { all.filter { $0.kind == kind } }
}

/// Four lower-case hex digits.
func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
