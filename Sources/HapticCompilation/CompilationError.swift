import DRV2605

/// Why a pattern cannot be compiled for an actuator.
public enum CompilationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The profile cannot be turned into chip settings (the driver's own verdict).
    case invalidProfile(String)
    /// An LRA profile without a resonant frequency, or an ERM without a time constant.
    case incompleteProfile(String)
    /// Calibration results that do not belong to this actuator profile (another
    /// actuator type, another rated voltage, a failed run): closed loop would regulate
    /// to a reference measured for something else.
    case calibrationMismatch(String)
    /// `found` transients would start within one control step, the densest window
    /// beginning `atSeconds` into the timeline (into its loop, when it loops);
    /// `CompilationLimits.transientsPerStep` is `limit`.
    case tooManyTransientsPerStep(found: Int, limit: Int, atSeconds: Double, stepMicroseconds: Int64, playbackRate: Double)
    /// `found` players would be mixed into one step; `CompilationLimits.contributionsPerStep` is `limit`.
    case tooManyContributions(found: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidProfile(let why): "the actuator profile cannot drive the chip: \(why)"
        case .incompleteProfile(let why): "the actuator profile is incomplete: \(why)"
        case .calibrationMismatch(let why): "the calibration results do not fit the actuator profile: \(why); run `hapbridge calibrate` again"
        case .tooManyTransientsPerStep(let found, let limit, let at, let step, let rate):
            "\(found) transients start within one \(step) µs control step (at playback rate \(rate)), from \(at) s "
                + "into the pattern; the limit (transientsPerStep) is \(limit): space them out, lower the playback rate or lengthen the loop"
        case .tooManyContributions(let found, let limit):
            "\(found) players would be mixed into one control step; the limit (contributionsPerStep) is \(limit): "
                + "release players that are done"
        }
    }
}
