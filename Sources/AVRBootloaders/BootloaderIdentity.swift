import Hex

/// The USB identity of a bootloader a bridge board can be flashed through, or of the
/// sketch that hands a board over to one: VID:PID and the string descriptors the board
/// answers with. The one place these are written: discovery (USBBridge's
/// `USBKnownIdentity`), `hapbridge flash` (Flashing) and the emulations
/// (USBEmulation's bootloaders and sketch) all read them from here.
public struct BootloaderIdentity: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Arduino's Caterina (AVR109 over CDC-ACM).
        case caterina
        /// Atmel's factory USB DFU bootloader (FLIP protocol version 1).
        case atmelDFU
        /// An Arduino-core sketch's CDC-ACM port: the 1200-baud touch resets it into Caterina.
        case sketch
    }

    public var vendorID: UInt16
    public var productID: UInt16
    public var kind: Kind
    /// What a user would call it ("Arduino Leonardo bootloader (Caterina)").
    public var name: String
    /// iManufacturer and iProduct, as the board sends them.
    public var manufacturer: String
    public var product: String

    /// "2341:0036", as lsusb writes it.
    public var description: String { Hex.digits(vendorID, width: 4, case: .lower) + ":" + Hex.digits(productID, width: 4, case: .lower) }
}

extension BootloaderIdentity {
    /// The Leonardo's Caterina: VID and PID from Arduino's bootloaders/caterina/Makefile
    /// ("official Leonardo PID"), the strings from its Descriptors.c.
    public static let leonardoCaterina = BootloaderIdentity(
        vendorID: 0x2341, productID: 0x0036, kind: .caterina, name: "Arduino Leonardo bootloader (Caterina)", manufacturer: "Arduino LLC",
        product: "Arduino Leonardo")
    /// The Micro's Caterina (the same Makefile's "official Micro PID"; Descriptors.c pads
    /// the product string to the Leonardo's 16 characters).
    public static let microCaterina = BootloaderIdentity(
        vendorID: 0x2341, productID: 0x0037, kind: .caterina, name: "Arduino Micro bootloader (Caterina)", manufacturer: "Arduino LLC",
        product: "Arduino Micro   ")
    /// SparkFun's Caterina on the 5 V / 16 MHz Pro Micro, the board the bridge firmware is
    /// built for (SparkFun's boards.txt: `promicro.menu.cpu.16MHzatmega32U4.build.pid.0`).
    public static let proMicroCaterina = BootloaderIdentity(
        vendorID: 0x1B4F, productID: 0x9205, kind: .caterina, name: "SparkFun Pro Micro bootloader (Caterina)", manufacturer: "SparkFun",
        product: "SparkFun Pro Micro")
    /// A Leonardo running an Arduino sketch (Arduino's boards.txt: `leonardo.build.pid`).
    public static let leonardoSketch = BootloaderIdentity(
        vendorID: 0x2341, productID: 0x8036, kind: .sketch, name: "Arduino Leonardo sketch", manufacturer: "Arduino LLC",
        product: "Arduino Leonardo")
    /// A 5 V / 16 MHz Pro Micro running an Arduino sketch, as one comes from the shop
    /// (SparkFun's Arduino_Boards, sparkfun/avr/boards.txt:
    /// `promicro.menu.cpu.16MHzatmega32U4.build.pid=0x9206`, `promicro.build.vid=0x1b4f`,
    /// `promicro.build.usb_product="SparkFun Pro Micro"`; boards.txt sets no
    /// usb_manufacturer, so the Arduino core's USBCore.cpp names VID 1B4F "SparkFun").
    /// Its Caterina is `proMicroCaterina` (`pid.0=0x9205`). The 3.3 V / 8 MHz Pro Micro
    /// (sketch 1b4f:9204, Caterina 1b4f:9203, the same file's 8MHzatmega32U4 menu) is
    /// left out on purpose: the bridge firmware is built for a 16 MHz crystal (its
    /// USB PLL and timer prescalers), so hapbridge neither finds nor flashes one.
    public static let proMicroSketch = BootloaderIdentity(
        vendorID: 0x1B4F, productID: 0x9206, kind: .sketch, name: "SparkFun Pro Micro sketch", manufacturer: "SparkFun",
        product: "SparkFun Pro Micro")
    /// A bare ATmega32U4 in Atmel's factory DFU bootloader: 03EB:2FF4 (LUFA's
    /// Bootloaders/DFU/Descriptors.h, dfu-programmer's and avrdude's part tables), the
    /// strings as the kernel logs a real one ("ATMEL", "ATm32U4DFU").
    public static let atmega32u4DFU = BootloaderIdentity(
        vendorID: 0x03EB, productID: 0x2FF4, kind: .atmelDFU, name: "Atmel DFU bootloader (ATmega32U4)", manufacturer: "ATMEL",
        product: "ATm32U4DFU")

    /// Every Caterina hapbridge looks for, in the order `list` names them.
    public static let caterinas: [BootloaderIdentity] = [leonardoCaterina, microCaterina, proMicroCaterina]
    /// Every bootloader hapbridge flashes through.
    public static let bootloaders: [BootloaderIdentity] = caterinas + [atmega32u4DFU]
    /// Every Arduino-core sketch `flash` resets into its Caterina with the 1200-baud touch.
    public static let sketches: [BootloaderIdentity] = [leonardoSketch, proMicroSketch]

    /// The Caterina this sketch's board resets into (the same board's boards.txt
    /// entry): nil for an identity that is not a sketch.
    public var caterina: BootloaderIdentity? {
        switch self {
        case Self.leonardoSketch: Self.leonardoCaterina
        case Self.proMicroSketch: Self.proMicroCaterina
        default: nil
        }
    }

    /// "2341:0036, 2341:0037, 1b4f:9205", for messages and help texts.
    public static func list(_ identities: [BootloaderIdentity]) -> String {
        identities.map(\.description).joined(separator: ", ")
    }
}
