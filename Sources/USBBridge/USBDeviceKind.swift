import AVRBootloaders
import BridgeProtocol
import Hex
import MPSSE

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
    /// A board running an Arduino-core sketch (a Pro Micro or Leonardo as it comes from
    /// the shop): `hapbridge flash` resets it into its Caterina with the 1200-baud touch.
    case arduinoSketch = "arduino-sketch"

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

    public static func usbID(vendorID: UInt16, productID: UInt16) -> String { Hex.digits(vendorID, width: 4, case: .lower) + ":" + Hex.digits(productID, width: 4, case: .lower) }

    /// Every identity discovery lists, the one table of them, each written where its
    /// facts live: the bridge's in `usb_identity.h`, the bootloaders' in AVRBootloaders
    /// (`BootloaderIdentity`), the FT232H's in MPSSE (FTDI's factory default, which an
    /// EEPROM can change).
    public static let all: [USBKnownIdentity] =
        [USBKnownIdentity(vendorID: USBIdentity.vendorID, productID: USBIdentity.productID, kind: .bridgeFirmware, name: "hapbridge bridge firmware")]
        + (BootloaderIdentity.bootloaders + BootloaderIdentity.sketches).map { b in
            let kind: USBDeviceKind =
                switch b.kind {
                case .atmelDFU: .atmelDFUBootloader
                case .caterina: .caterinaBootloader
                case .sketch: .arduinoSketch
                }
            return USBKnownIdentity(vendorID: b.vendorID, productID: b.productID, kind: kind, name: b.name)
        }
        + [USBKnownIdentity(vendorID: FT232HIdentity.vendorID, productID: FT232HIdentity.productID, kind: .ft232h, name: "FTDI FT232H")]

    /// The identity with this VID:PID, if hapbridge knows it.
    public static func lookup(vendorID: UInt16, productID: UInt16) -> USBKnownIdentity? {
        all.first { $0.vendorID == vendorID && $0.productID == productID }
    }

    /// The VID:PIDs of one kind (for hotplug filters and tests).
    public static func identities(of kind: USBDeviceKind) -> [USBKnownIdentity] { all.filter { $0.kind == kind } }
}
