import BridgeProtocol
import CHapbridgeProtocol

/// What a bridge board says about itself in HELLO_REPLY: the protocol it speaks, its
/// firmware, its chip, and (protocol 1.1) its serial number and bootloader.
public struct BoardIdentity: Sendable, Equatable {
    public var protocolMajor: UInt8
    /// The negotiated minor: the lower of the host's and the board's.
    public var protocolMinor: UInt8
    public var firmwareMajor: UInt8
    public var firmwareMinor: UInt8
    public var capabilities: BoardCapabilities
    public var queueCapacity: Int
    /// STATUS.DEVICE_ID of the chip; nil when no chip answered at 0x5A.
    public var chipDeviceID: UInt8?
    public var serialNumber: String?
    public var bootloader: BootloaderKind?
    public var keepAliveMilliseconds: UInt16
    public var maxDriveMilliseconds: UInt16

    init(_ r: BoardFrame.HelloReply) {
        protocolMajor = r.protocolMajor
        protocolMinor = r.protocolMinor
        firmwareMajor = r.firmwareMajor
        firmwareMinor = r.firmwareMinor
        capabilities = r.capabilitySet
        queueCapacity = Int(r.queueCapacity)
        chipDeviceID = r.deviceID == 0xFF ? nil : r.deviceID
        serialNumber = r.serialNumber?.text
        bootloader = r.bootloader
        keepAliveMilliseconds = r.keepAliveMilliseconds
        maxDriveMilliseconds = r.maxDriveMilliseconds
    }

    public var protocolVersion: String { "\(protocolMajor).\(protocolMinor)" }
    public var firmwareVersion: String { "\(firmwareMajor).\(firmwareMinor)" }
    /// The firmware this hapbridge carries and `hapbridge flash` writes
    /// (Firmware/protocol/include/hapbridge/firmware_version.h), as "major.minor".
    public static let currentFirmwareVersion = "\(HB_FW_VERSION_MAJOR).\(HB_FW_VERSION_MINOR)"
    /// The board runs firmware older than the one this hapbridge carries.
    public var firmwareIsOlder: Bool {
        (UInt32(firmwareMajor), UInt32(firmwareMinor)) < (UInt32(HB_FW_VERSION_MAJOR), UInt32(HB_FW_VERSION_MINOR))
    }
    /// What to tell a user whose board runs older firmware (nil when it does not):
    /// the versions and the command that updates it.
    public func firmwareUpdateNotice(address: String) -> String? {
        guard firmwareIsOlder else { return nil }
        return "firmware \(firmwareVersion) is older than this hapbridge's \(Self.currentFirmwareVersion): `hapbridge flash --device \(address)` updates it"
    }
    /// Register access through the bridge (protocol 1.1's untimed I2C frames).
    public var canAccessRegisters: Bool { protocolMinor >= 1 && capabilities.contains(.rawI2C) }
}
