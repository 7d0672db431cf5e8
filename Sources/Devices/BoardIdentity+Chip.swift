import BridgeLink
import DRV2605

extension BoardIdentity {
    /// The chip, when its DEVICE_ID is one the driver knows.
    public var chip: DeviceVariant? { chipDeviceID.flatMap { DeviceVariant(deviceID: $0) } }
}
