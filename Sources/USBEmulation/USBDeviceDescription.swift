import Hex
import SimavrBridgeDevice

/// What a device told the host about itself when it was enumerated: its device
/// descriptor, every configuration descriptor (with their interfaces and endpoints)
/// and the strings the kernel reads into sysfs. The umockdev record is built from
/// it, so a client sees exactly the bytes the device returned.
public struct USBDeviceDescription: Sendable, Equatable {
    public struct Endpoint: Sendable, Equatable {
        /// bEndpointAddress: number, with 0x80 set for IN.
        public var address: UInt8
        /// bmAttributes: transfer type in bits 0-1 (2 bulk, 3 interrupt).
        public var attributes: UInt8
        public var maxPacketSize: Int
        public var interval: UInt8
        public var isIn: Bool { address & 0x80 != 0 }
        public var transferType: UInt8 { attributes & 0x03 }
    }

    public struct Interface: Sendable, Equatable {
        public var number: UInt8
        public var alternateSetting: UInt8
        public var interfaceClass: UInt8
        public var interfaceSubclass: UInt8
        public var interfaceProtocol: UInt8
        public var endpoints: [Endpoint]
    }

    public struct Configuration: Sendable, Equatable {
        /// The whole descriptor as the device returned it (wTotalLength bytes).
        public var bytes: [UInt8]
        public var value: UInt8
        /// bmAttributes (0x80 bus powered, 0x40 self powered, 0x20 remote wakeup).
        public var attributes: UInt8
        /// bMaxPower in 2 mA units.
        public var maxPower: UInt8
        public var interfaceCount: UInt8
        /// Every interface descriptor, alternate settings included.
        public var interfaces: [Interface]
    }

    /// The 18-byte device descriptor.
    public let device: [UInt8]
    public let configurations: [Configuration]
    public let manufacturer: String?
    public let product: String?
    public let serial: String?

    public var bcdUSB: UInt16 { le16(device, 2) }
    public var deviceClass: UInt8 { device[4] }
    public var deviceSubclass: UInt8 { device[5] }
    public var deviceProtocol: UInt8 { device[6] }
    public var maxPacketSize0: UInt8 { device[7] }
    public var vendorID: UInt16 { le16(device, 8) }
    public var productID: UInt16 { le16(device, 10) }
    public var bcdDevice: UInt16 { le16(device, 12) }

    /// The bus speed its descriptors imply, Mb/s (sysfs `speed`): a bulk endpoint of 512
    /// bytes exists only at high speed (USB 2.0 §5.8.3: full-speed bulk is at most 64),
    /// so an FT232H is 480 and an ATmega32U4 or a bootloader 12.
    public var speedMbps: Int {
        let bulk = configurations.flatMap { $0.interfaces.flatMap(\.endpoints) }.filter { $0.transferType == 2 }
        return bulk.contains { $0.maxPacketSize == 512 } ? 480 : 12
    }

    /// Checks the descriptors' own lengths and types; strings are already decoded.
    public init(
        device: [UInt8], configurations: [[UInt8]], manufacturer: String?, product: String?, serial: String?
    ) throws(USBDescriptorError) {
        guard device.count == 18, device[0] == 18, device[1] == 1 else {
            throw .malformed("device descriptor", device, "18 bytes, bLength 18, bDescriptorType 1")
        }
        guard Int(device[17]) == configurations.count, !configurations.isEmpty else {
            throw .malformed(
                "device descriptor", device, "bNumConfigurations \(device[17]) matching the \(configurations.count) configuration(s) read")
        }
        self.device = device
        self.configurations = try configurations.map { bytes throws(USBDescriptorError) in try Self.parse(configuration: bytes) }
        self.manufacturer = manufacturer
        self.product = product
        self.serial = serial
    }

    /// Device descriptor then every configuration, as the kernel's sysfs
    /// `descriptors` file holds them (libusb reads them from there).
    public var sysfsDescriptors: [UInt8] { device + configurations.flatMap(\.bytes) }

    /// The endpoint with this address in any configuration, with the interface it is in.
    public func endpoint(_ address: UInt8) -> (Endpoint, interface: UInt8)? {
        for c in configurations {
            for i in c.interfaces {
                if let e = i.endpoints.first(where: { $0.address == address }) { return (e, i.number) }
            }
        }
        return nil
    }

    public func configuration(value: UInt8) -> Configuration? { configurations.first { $0.value == value } }

    /// Walks a configuration descriptor: configuration, then interface and endpoint
    /// descriptors (others, such as class-specific ones, are skipped by their length).
    static func parse(configuration b: [UInt8]) throws(USBDescriptorError) -> Configuration {
        guard b.count >= 9, b[0] == 9, b[1] == 2, Int(le16(b, 2)) == b.count else {
            throw .malformed("configuration descriptor", b, "bLength 9, bDescriptorType 2, wTotalLength = bytes read")
        }
        var config = Configuration(bytes: b, value: b[5], attributes: b[7], maxPower: b[8], interfaceCount: b[4], interfaces: [])
        var at = Int(b[0])
        while at < b.count {
            let length = Int(b[at])
            guard length >= 2, at + length <= b.count else {
                throw .malformed("configuration descriptor", b, "a descriptor of length \(length) at byte \(at) that fits")
            }
            switch b[at + 1] {
            case 4 where length >= 9:
                config.interfaces.append(
                    Interface(
                        number: b[at + 2], alternateSetting: b[at + 3], interfaceClass: b[at + 5],
                        interfaceSubclass: b[at + 6], interfaceProtocol: b[at + 7], endpoints: []))
            case 5 where length >= 7:
                guard !config.interfaces.isEmpty else {
                    throw .malformed("configuration descriptor", b, "an interface before the endpoint at byte \(at)")
                }
                config.interfaces[config.interfaces.count - 1].endpoints.append(
                    Endpoint(address: b[at + 2], attributes: b[at + 3], maxPacketSize: Int(le16(b, at + 4) & 0x7FF), interval: b[at + 6]))
            default:
                break
            }
            at += length
        }
        return config
    }

    /// The text of a string descriptor (UTF-16LE after its 2-byte header).
    public static func text(ofStringDescriptor b: [UInt8]) throws(USBDescriptorError) -> String {
        guard b.count >= 2, Int(b[0]) == b.count, b[1] == 3, b.count % 2 == 0 else {
            throw .malformed("string descriptor", b, "bLength = bytes read (even), bDescriptorType 3")
        }
        let units = stride(from: 2, to: b.count, by: 2).map { UInt16(b[$0]) | UInt16(b[$0 + 1]) << 8 }
        return String(decoding: units, as: UTF16.self)
    }
}

func le16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }

public enum USBDescriptorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was read, its bytes, and what the USB specification (chapter 9) wants.
    case malformed(String, [UInt8], String)

    public var description: String {
        switch self {
        case .malformed(let what, let bytes, let rule): "\(what) \(Hex.bytes(bytes, case: .lower)): expected \(rule)"
        }
    }
}
