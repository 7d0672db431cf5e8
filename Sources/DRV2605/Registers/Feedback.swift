/// FEEDBACK_CONTROL.FB_BRAKE_FACTOR: braking gain relative to driving gain.
public enum BrakeFactor: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case x1 = 0, x2 = 1, x3 = 2, x4 = 3, x6 = 4, x8 = 5, x16 = 6, disabled = 7

    /// The gain ratio; nil when braking is off.
    public var multiplier: Double? {
        switch self {
        case .x1: 1
        case .x2: 2
        case .x3: 3
        case .x4: 4
        case .x6: 6
        case .x8: 8
        case .x16: 16
        case .disabled: nil
        }
    }

    public init?(multiplier: Int) {
        guard let match = BrakeFactor.allCases.first(where: { $0.multiplier.map { Int($0) } == multiplier }) else {
            return nil
        }
        self = match
    }

    public var description: String { multiplier.map { "\(Int($0))x" } ?? "off" }
}

/// FEEDBACK_CONTROL.LOOP_GAIN.
public enum LoopGain: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case low = 0, medium = 1, high = 2, veryHigh = 3
    public var description: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        case .veryHigh: "very high"
        }
    }
}

/// N_ERM_LRA.
public enum ActuatorKindBit: UInt8, Sendable {
    case erm = 0
    case lra = 1
}

/// FEEDBACK_CONTROL (0x1A).
public struct FeedbackControlRegister: DRV2605Register {
    public static let address = RegisterAddress.feedbackControl
    public static let actuatorTypeField = BitField(shift: 7, width: 1)
    public static let brakeFactorField = BitField(shift: 4, width: 3)
    public static let loopGainField = BitField(shift: 2, width: 2)
    public static let backEMFGainField = BitField(shift: 0, width: 2)

    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var isLRA: Bool {
        get { Self.actuatorTypeField.get(rawValue) == ActuatorKindBit.lra.rawValue }
        set { Self.actuatorTypeField.set(&rawValue, newValue ? ActuatorKindBit.lra.rawValue : ActuatorKindBit.erm.rawValue) }
    }
    public var brakeFactor: BrakeFactor {
        get { BrakeFactor(rawValue: Self.brakeFactorField.get(rawValue)) ?? .disabled }
        set { Self.brakeFactorField.set(&rawValue, newValue.rawValue) }
    }
    public var loopGain: LoopGain {
        get { LoopGain(rawValue: Self.loopGainField.get(rawValue)) ?? .low }
        set { Self.loopGainField.set(&rawValue, newValue.rawValue) }
    }
    /// BEMF_GAIN code (0...3); `backEMFGainFactor` gives its meaning.
    public var backEMFGain: UInt8 {
        get { Self.backEMFGainField.get(rawValue) }
        set { Self.backEMFGainField.set(&rawValue, newValue) }
    }
    public static let backEMFGainCodes: ClosedRange<UInt8> = 0...3
}

/// A byte-wide value register (RATED_VOLTAGE, OD_CLAMP, A_CAL_COMP, A_CAL_BEMF, VBAT, LRA_PERIOD).
public struct ByteRegister: Sendable, Equatable {
    public let address: RegisterAddress
    public var rawValue: UInt8
    public init(_ address: RegisterAddress, _ rawValue: UInt8) {
        self.address = address
        self.rawValue = rawValue
    }
}
