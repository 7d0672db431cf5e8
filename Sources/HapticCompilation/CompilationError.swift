import DRV2605

/// Why a pattern cannot be compiled for an actuator.
public enum CompilationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The profile cannot be turned into chip settings (the driver's own verdict).
    case invalidProfile(String)
    /// An LRA profile without a resonant frequency, or an ERM without a time constant.
    case incompleteProfile(String)

    public var description: String {
        switch self {
        case .invalidProfile(let why): "the actuator profile cannot drive the chip: \(why)"
        case .incompleteProfile(let why): "the actuator profile is incomplete: \(why)"
        }
    }
}
