/// The chapter-9 part of a USB device (USB 2.0, 9.4): descriptors, address,
/// configuration, endpoint halt, status. An emulated device whose firmware is not
/// simulated down to its USB stack answers endpoint 0 with this; it behaves like the
/// ATmega32U4 port's usb.c (Firmware/ports/atmega32u4), request for request and byte
/// for byte: standard requests only, everything else STALLs. The `chapter9` probe
/// conversation (USBEmulationTests, WireTests) holds both to the same replies.
struct StandardRequests: Sendable {
    let deviceDescriptor: [UInt8]
    let configurationDescriptor: [UInt8]
    /// A high-speed capable device's device_qualifier and other_speed_configuration
    /// (USB 2.0 9.6.2, 9.6.4): how it would look at its other speed. Nil for a
    /// full-speed-only device, which answers a request for them with a Request Error
    /// (9.6.2: "must respond with a request error"), as the bridge board does.
    let otherSpeed: (qualifier: [UInt8], configuration: [UInt8])?
    /// String descriptors by index; index 0 is the language ID list.
    let strings: [[UInt8]]
    let configurationValue: UInt8
    /// Every endpoint address of the configuration (0x81, 0x02, ...).
    let endpoints: Set<UInt8>
    let interfaces: Set<UInt8>

    private(set) var address: UInt8 = 0
    private(set) var configuration: UInt8 = 0
    private(set) var halted: Set<UInt8> = []

    init(
        deviceDescriptor: [UInt8], configurationDescriptor: [UInt8], strings: [[UInt8]],
        otherSpeed: (qualifier: [UInt8], configuration: [UInt8])? = nil
    ) throws(USBDescriptorError) {
        let config = try USBDeviceDescription.parse(configuration: configurationDescriptor)
        self.deviceDescriptor = deviceDescriptor
        self.configurationDescriptor = configurationDescriptor
        self.otherSpeed = otherSpeed
        self.strings = strings
        configurationValue = config.value
        endpoints = Set(config.interfaces.flatMap { $0.endpoints.map(\.address) })
        interfaces = Set(config.interfaces.map(\.number))
    }

    var isConfigured: Bool { configuration != 0 }

    /// A bus reset: default address, unconfigured, no halts.
    mutating func reset() {
        address = 0
        configuration = 0
        halted = []
    }

    mutating func handle(_ s: USBSetupPacket, data: [UInt8]) -> USBPipeResult {
        guard s.kind == 0 else { return .stall }  // no class or vendor requests
        switch (s.request, s.recipient) {
        case (StandardRequest.getDescriptor, 0):
            return descriptor(type: UInt8(s.value >> 8), index: UInt8(s.value & 0xFF)).map { .done(Array($0.prefix(Int(s.length)))) }
                ?? .stall
        case (StandardRequest.setAddress, 0):
            address = UInt8(s.value & 0x7F)
            return .done([])
        case (StandardRequest.setConfiguration, 0):
            guard s.value == 0 || s.value == UInt16(configurationValue) else { return .stall }
            configuration = UInt8(s.value)
            halted = []
            return .done([])
        case (StandardRequest.getConfiguration, 0):
            return .done(Array([configuration].prefix(Int(s.length))))
        // USB 2.0 9.4.5: two bytes for the device (bus powered, no remote wakeup), the
        // interface and every endpoint it has, endpoint 0 included (0x00 or 0x80, never
        // halted: its STALL ends with the next SETUP); a Request Error for anything it
        // lacks, and before SET_CONFIGURATION for all but the device and endpoint 0.
        case (StandardRequest.getStatus, 0):
            return .done(Array([0, 0].prefix(Int(s.length))))
        case (StandardRequest.getStatus, 1):
            guard isConfigured, interfaces.contains(UInt8(truncatingIfNeeded: s.index)) else { return .stall }
            return .done(Array([0, 0].prefix(Int(s.length))))
        case (StandardRequest.getStatus, 2):
            let address = UInt8(truncatingIfNeeded: s.index)
            if address == 0x00 || address == 0x80 { return .done(Array([0, 0].prefix(Int(s.length)))) }
            guard let ep = endpoint(s.index) else { return .stall }
            return .done(Array([halted.contains(ep) ? 1 : 0, 0].prefix(Int(s.length))))
        case (StandardRequest.clearFeature, 2), (StandardRequest.setFeature, 2):
            // ENDPOINT_HALT (feature 0) is the only endpoint feature.
            guard s.value == 0, let ep = endpoint(s.index) else { return .stall }
            if s.request == StandardRequest.setFeature { halted.insert(ep) } else { halted.remove(ep) }
            return .done([])
        case (StandardRequest.getInterface, 1):
            guard isConfigured, interfaces.contains(UInt8(truncatingIfNeeded: s.index)) else { return .stall }
            return .done(Array([0].prefix(Int(s.length))))
        case (StandardRequest.setInterface, 1):
            guard isConfigured, s.value == 0, interfaces.contains(UInt8(truncatingIfNeeded: s.index)) else { return .stall }
            return .done([])
        default:
            return .stall
        }
    }

    private func descriptor(type: UInt8, index: UInt8) -> [UInt8]? {
        switch type {
        case 1: index == 0 ? deviceDescriptor : nil
        case 2: index == 0 ? configurationDescriptor : nil
        case 3: Int(index) < strings.count ? strings[Int(index)] : nil
        case 6: index == 0 ? otherSpeed?.qualifier : nil
        case 7: index == 0 ? otherSpeed?.configuration : nil
        default: nil
        }
    }

    /// A bulk endpoint of the configuration, by the wIndex of an endpoint request (its
    /// address, direction bit included); none before SET_CONFIGURATION (9.4.5: in the
    /// Address state any endpoint but 0 is a Request Error).
    private func endpoint(_ index: UInt16) -> UInt8? {
        let ep = UInt8(truncatingIfNeeded: index)
        return isConfigured && endpoints.contains(ep) ? ep : nil
    }
}

/// Standard request codes (USB 2.0, table 9-4).
enum StandardRequest {
    static let getStatus: UInt8 = 0x00
    static let clearFeature: UInt8 = 0x01
    static let setFeature: UInt8 = 0x03
    static let setAddress: UInt8 = 0x05
    static let getDescriptor: UInt8 = 0x06
    static let getConfiguration: UInt8 = 0x08
    static let setConfiguration: UInt8 = 0x09
    static let getInterface: UInt8 = 0x0A
    static let setInterface: UInt8 = 0x0B
}
