import Actuators
import DRV2605

/// What the compiler needs to know about the attached actuator and chip, and the
/// register block that sets the chip up for the engine's way of driving.
///
/// **The engine drives in open loop with signed RTP, always.** The bridge protocol
/// has no register read, so the host cannot run or check auto-calibration, and a
/// closed loop without calibration results has no back-EMF reference to regulate
/// to. In open loop the drive is what the host writes: RTP 127 is full scale, which
/// OD_CLAMP sets to the profile's *maximum* voltage, so the compiler owns overdrive
/// (levels above the rated fraction) and braking (negative levels) explicitly, and
/// every command can be checked by hand.
public struct DriveTarget: Sendable, Equatable {
    /// How sharpness shapes the drive.
    public enum SharpnessShaping: Sendable, Equatable {
        /// DRV2605L (or 2604L) with an LRA: sharpness sets OL_LRA_PERIOD.
        case openLoopFrequency
        /// Everything else: sharpness sets how much overdrive and braking a step gets.
        case overdriveAndBrakeEmphasis
    }

    public var profile: ActuatorProfile
    public var variant: DeviceVariant
    public var shaping: SharpnessShaping
    /// Full-scale drive (RTP 127) in the profile's voltage unit, from the OD_CLAMP code.
    public var fullScaleVolts: Double
    /// Rated voltage as a fraction of full scale (≤ 1): the level intensity 1 plays at.
    public var ratedLevel: Double
    /// LRA: the resonant frequency; ERM: nil.
    public var resonantFrequencyHz: Double?
    /// The actuator's mechanical time constant in µs: ERM spin-up (profile), LRA
    /// amplitude envelope Q / (π f0). Overdrive and brake lengths scale with it.
    public var timeConstantMicroseconds: Double
    /// Register writes, in order, that configure the chip for open-loop signed RTP.
    public var setupWrites: [SetupWrite]

    public struct SetupWrite: Sendable, Equatable {
        public var register: UInt8
        public var value: UInt8
    }

    public init(profile: ActuatorProfile, variant: DeviceVariant) throws(CompilationError) {
        self.profile = profile
        self.variant = variant
        var openProfile = profile
        openProfile.drive.loop = .open
        let settings: DriveSettings
        do { settings = try DriveSettings(profile: openProfile, variant: variant) } catch {
            throw .invalidProfile(String(describing: error))
        }
        var control3 = settings.control3
        control3.rtpUnsigned = false
        var clamp: UInt8
        switch profile.kind {
        case .lra:
            guard let f0 = profile.lra?.resonantFrequencyHz, f0 > 0 else { throw .incompleteProfile("LRA without a resonant frequency") }
            let q = profile.lra?.qualityFactor ?? 10
            resonantFrequencyHz = f0
            timeConstantMicroseconds = q / (Double.pi * f0) * 1e6
            clamp = DRV2605Formulas.lraOpenLoopClampCode(rmsVolts: profile.maxVoltage, frequencyHz: f0)
            fullScaleVolts = DRV2605Formulas.lraOpenLoopVoltage(code: clamp, frequencyHz: f0)
            shaping = variant.isLVariant ? .openLoopFrequency : .overdriveAndBrakeEmphasis
        case .erm:
            guard let tau = profile.erm?.timeConstantMilliseconds, tau > 0 else { throw .incompleteProfile("ERM without a time constant") }
            resonantFrequencyHz = nil
            timeConstantMicroseconds = tau * 1000
            let driveTime = DRV2605Formulas.ermDriveTimeSeconds(code: settings.control1.driveTime)
            let (idiss, blank) = DriveSettings.idissAndBlankingSeconds(control2: settings.control2, isLRA: false)
            clamp = DRV2605Formulas.ermOpenLoopClampCode(
                averageVolts: profile.maxVoltage, driveTimeSeconds: driveTime, idissSeconds: idiss, blankingSeconds: blank)
            fullScaleVolts = DRV2605Formulas.ermOpenLoopVoltage(
                code: clamp, driveTimeSeconds: driveTime, idissSeconds: idiss, blankingSeconds: blank)
            shaping = .overdriveAndBrakeEmphasis
        }
        ratedLevel = fullScaleVolts > 0 ? min(1, profile.ratedVoltage / fullScaleVolts) : 0

        var writes: [SetupWrite] = [
            SetupWrite(register: RegisterAddress.ratedVoltage.rawValue, value: settings.ratedVoltage),
            SetupWrite(register: RegisterAddress.overdriveClamp.rawValue, value: clamp),
            SetupWrite(register: RegisterAddress.feedbackControl.rawValue, value: settings.feedback.rawValue),
            SetupWrite(register: RegisterAddress.control1.rawValue, value: settings.control1.rawValue),
            SetupWrite(register: RegisterAddress.control2.rawValue, value: settings.control2.rawValue),
            SetupWrite(register: RegisterAddress.control3.rawValue, value: control3.rawValue),
            SetupWrite(register: RegisterAddress.control4.rawValue, value: settings.control4.rawValue),
        ]
        if shaping == .openLoopFrequency, let f0 = resonantFrequencyHz {
            writes.append(SetupWrite(register: RegisterAddress.openLoopLRAPeriod.rawValue, value: DRV2605Formulas.openLoopPeriodCode(frequencyHz: f0)))
        }
        setupWrites = writes
    }

    /// The setup block as timed commands, all at `time`.
    public func setupCommands(at time: Int64) -> [TimedCommand] {
        setupWrites.map { TimedCommand(time: time, command: .register($0.register, $0.value)) }
    }
}
