/// The chips of the family, told apart by STATUS.DEVICE_ID.
public enum DeviceVariant: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case drv2605
    case drv2604
    case drv2604L
    case drv2605L

    /// DEVICE_ID values from the datasheets' STATUS register description.
    public var deviceID: UInt8 {
        switch self {
        case .drv2605: 3
        case .drv2604: 4
        case .drv2604L: 6
        case .drv2605L: 7
        }
    }

    public init?(deviceID: UInt8) {
        guard let match = DeviceVariant.allCases.first(where: { $0.deviceID == deviceID }) else { return nil }
        self = match
    }

    /// The L parts add CONTROL5, OL_LRA_PERIOD and LRA open-loop at a set period.
    public var isLVariant: Bool { self == .drv2605L || self == .drv2604L }
    /// Only the 2605 parts carry the licensed ROM libraries (the 2604 parts have RAM instead).
    public var hasROMLibraries: Bool { self == .drv2605 || self == .drv2605L }

    public var description: String {
        switch self {
        case .drv2605: "DRV2605"
        case .drv2604: "DRV2604"
        case .drv2604L: "DRV2604L"
        case .drv2605L: "DRV2605L"
        }
    }
}
