import Actuators
import HapticCompilation

/// The two actuators the compilation tests work by hand: copies of the figures in
/// Hardware/actuators (PMD C10-100 LRA, PMD 307-103 ERM), inline so a profile edit
/// there cannot silently move these numbers.
enum Profiles {
    static let lra = ActuatorProfile(
        id: "test-lra", maker: "test", partNumber: "C10-100", kind: .lra, ratedVoltage: 2.0, maxVoltage: 3.0,
        coilResistanceOhms: 25, ratedAccelerationG: 1.4,
        lra: .init(resonantFrequencyHz: 175, qualityFactor: 12, movingMassGrams: 2.0), source: .init(document: "test"))
    static let erm = ActuatorProfile(
        id: "test-erm", maker: "test", partNumber: "307-103", kind: .erm, ratedVoltage: 3.0, maxVoltage: 3.7,
        coilResistanceOhms: 36, ratedAccelerationG: 1.3,
        erm: .init(ratedSpeedRPM: 13800, timeConstantMilliseconds: 35), source: .init(document: "test"))
}

/// The three targets the compilation tests work by hand (DriveTargetTests derives
/// their figures: LRA rated level 0.66551, ERM 0.81115).
struct Targets {
    /// The C10-100 on a DRV2605L: sharpness sets the open-loop drive frequency.
    let lra: DriveTarget
    /// The C10-100 on a plain DRV2605: a fixed frequency, sharpness as emphasis.
    let lraPlain: DriveTarget
    /// The 307-103 ERM: sharpness as emphasis.
    let erm: DriveTarget

    init() throws {
        lra = try DriveTarget(profile: Profiles.lra, variant: .drv2605L)
        lraPlain = try DriveTarget(profile: Profiles.lra, variant: .drv2605)
        erm = try DriveTarget(profile: Profiles.erm, variant: .drv2605L)
    }
}
