import Actuators
import DRV2605
import HapticCompilation

/// The two actuators the compilation tests work by hand: copies of the figures in
/// Hardware/actuators (PMD C10-100 LRA, PMD 307-103 ERM), inline so a profile edit
/// there cannot silently move these numbers.
enum Profiles {
    static let lra = ActuatorProfile(
        id: "test-lra", maker: "test", partNumber: "C10-100", kind: .lra, ratedVoltage: 2.0, maxVoltage: 3.0,
        coilResistanceOhms: 25, ratedAccelerationG: 1.4, accelerationMeasure: .peakToPeak,
        lra: .init(resonantFrequencyHz: 175, qualityFactor: 12, movingMassGrams: 2.0), source: .init(document: "test"))
    static let erm = ActuatorProfile(
        id: "test-erm", maker: "test", partNumber: "307-103", kind: .erm, ratedVoltage: 3.0, maxVoltage: 3.7,
        coilResistanceOhms: 36, ratedAccelerationG: 1.3, accelerationMeasure: .peakToPeak,
        erm: .init(ratedSpeedRPM: 13800, timeConstantMilliseconds: 35), source: .init(document: "test"))
}

/// Calibration results for the C10-100 as the chip leaves them, fixed here so the
/// closed-loop numbers can be worked by hand: RATED_VOLTAGE 83 (what the profile gives,
/// DriveTargetTests), OD_CLAMP 141, A_CAL_COMP 15, A_CAL_BEMF 149, FEEDBACK_CONTROL 0xA4
/// (LRA, brake 3x, loop gain medium, BEMF_GAIN 0) and LRA_PERIOD 53: this unit
/// resonates at 1 / (53 × 98.46 µs) = 191.63 Hz, not the profile's 175.
enum Calibrations {
    static let lra = AutoCalibrationResult(
        ratedVoltageCode: 83, overdriveClampCode: 141, compensationCode: 15, backEMFCode: 149, feedbackControl: 0xA4, lraPeriodCode: 53)
}

/// The targets the compilation tests work by hand (DriveTargetTests derives their
/// figures: LRA rated level 0.66551, ERM 0.81115; closed loop 1).
struct Targets {
    /// The C10-100 on a DRV2605L: sharpness sets the open-loop drive frequency.
    let lra: DriveTarget
    /// The C10-100 on a plain DRV2605: a fixed frequency, sharpness as emphasis.
    let lraPlain: DriveTarget
    /// The 307-103 ERM: sharpness as emphasis.
    let erm: DriveTarget
    /// The C10-100 on a DRV2605L with `Calibrations.lra`: closed loop, sharpness as ramps.
    let lraClosed: DriveTarget

    init() throws {
        lra = try DriveTarget(profile: Profiles.lra, variant: .drv2605L)
        lraPlain = try DriveTarget(profile: Profiles.lra, variant: .drv2605)
        erm = try DriveTarget(profile: Profiles.erm, variant: .drv2605L)
        lraClosed = try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: Calibrations.lra)
    }
}
