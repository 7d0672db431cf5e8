import Bench

/// Where a step's figures came from, as every report names it (the JSON record's
/// `source`, JUnit's figure lines, the OpenMetrics `source` label): the acceleration a
/// play, measure or sweep step read (a sensor or the model), the chip's own registers
/// (calibration results, LRA_PERIOD), the bootloader's read-back (a flash) or the
/// host's clock (how long a replugged board took to come back).
public enum FigureSource: Sendable, Equatable {
    case acceleration(AccelerationProvenance)
    case chip
    case bootloader
    case host

    /// One word, stable from run to run: "sensor", "model", "chip", "bootloader", "host".
    public var label: String {
        switch self {
        case .acceleration(let p): p.origin.rawValue
        case .chip: "chip"
        case .bootloader: "bootloader"
        case .host: "host"
        }
    }

    /// For a person: "sensor (LIS3DH, X axis, 470 samples at 1344 Hz)", "chip (the DRV2605's registers)".
    public var text: String {
        switch self {
        case .acceleration(let p): p.text
        case .chip: "chip (the DRV2605's registers)"
        case .bootloader: "bootloader (the flash read back)"
        case .host: "host (its clock)"
        }
    }
}

extension StepResult {
    /// Where this step's figures came from (every figure of one step has one source).
    public var figureSource: FigureSource {
        if let p = accelerationProvenance { return .acceleration(p) }
        switch kind {
        case .calibrate, .diagnose: return .chip
        case .flash: return .bootloader
        case .play, .measure, .compare, .sweep, .wait, .unplug, .replug: return .host
        }
    }
}
