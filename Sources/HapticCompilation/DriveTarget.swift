import Actuators
import DRV2605

/// What the compiler needs to know about the attached actuator and chip, and the
/// register block that sets the chip up for the engine's way of driving. Signed RTP
/// always; the loop depends on what is known about the actuator:
///
/// - **Open loop** (no calibration results, or an ERM): the drive is what the host
///   writes. RTP 127 is full scale, which OD_CLAMP sets to the profile's *maximum*
///   voltage, so the compiler owns overdrive (levels above the rated fraction) and
///   braking (negative levels) explicitly, and every command can be checked by hand.
/// - **Closed loop** (an LRA with its auto-calibration results): the chip regulates
///   the actuator's back-EMF to the calibrated reference and tracks its resonance.
///   The DRV2605L-Q1 datasheet (SLOS874A, 7.5.7.1.3 "Closed-Loop Mode, Bidirectional"): "The
///   reference level for steady-state full-scale drive is set by the
///   RATED_VOLTAGE[7:0] bit (when auto calibration is performed). The output voltage
///   can momentarily exceed the rated voltage for automatic overdrive and braking,
///   but does not exceed the OD_CLAMP[7:0] voltage." So RTP 127 is the *rated*
///   amplitude, OD_CLAMP is the profile's maximum voltage as a peak, and below
///   mid-scale is zero drive ("interprets them as the same as the mid-scale with zero
///   drive"): the chip overdrives and brakes by itself, phase-locked to the mass.
///   Without calibration there is no back-EMF reference to regulate to, hence open
///   loop then.
///
/// ERMs stay open loop even when calibrated: an ERM has no resonance for the chip
/// to track, its open-loop overdrive and reverse braking are already explicit and
/// checkable, and what the chip's ERM loop would add (holding the speed on the
/// back-EMF) is what the model captures least (no start voltage, no commutator
/// ripple: `Hardware/drv2605-model.md`), so a gain shown there would be the model's.
public struct DriveTarget: Sendable, Equatable {
    /// Who closes the loop around the actuator's motion.
    public enum Loop: Sendable, Equatable {
        /// The host: the drive is what it writes.
        case open
        /// The chip, on the back-EMF, against calibration results.
        case closed
    }

    /// How sharpness shapes the drive (`DriveCompiler`, rule 2).
    public enum SharpnessShaping: Sendable, Equatable, CustomStringConvertible {
        /// DRV2605L (or 2604L) with an LRA in open loop: sharpness sets OL_LRA_PERIOD.
        case openLoopFrequency
        /// Open loop otherwise: sharpness sets how much overdrive and braking a step gets.
        case overdriveAndBrakeEmphasis
        /// Closed loop: the chip follows the resonance and overdrives and brakes every
        /// step by itself; sharpness sets how gradually a step is handed to it.
        case rampedSteps

        public var description: String {
            switch self {
            case .openLoopFrequency: "open-loop LRA frequency"
            case .overdriveAndBrakeEmphasis: "overdrive/brake emphasis"
            case .rampedSteps: "closed loop, sharpness as step ramps"
            }
        }
    }

    public var profile: ActuatorProfile
    public var variant: DeviceVariant
    public var loop: Loop
    public var shaping: SharpnessShaping
    /// The calibration results the setup restores (closed loop); nil in open loop.
    public var calibration: AutoCalibrationResult?
    /// Full-scale drive (RTP 127) in the profile's voltage unit: open loop, from the
    /// OD_CLAMP code; closed loop, the steady-state rated voltage from RATED_VOLTAGE.
    public var fullScaleVolts: Double
    /// Rated voltage as a fraction of full scale (≤ 1): the level intensity 1 plays
    /// at. 1 in closed loop, where full scale is the rated amplitude.
    public var ratedLevel: Double
    /// LRA: the resonant frequency (closed loop: the one calibration measured, when it
    /// did); ERM: nil.
    public var resonantFrequencyHz: Double?
    /// The actuator's mechanical time constant in µs: ERM spin-up (profile), LRA
    /// amplitude envelope Q / (π f0). Overdrive and brake lengths scale with it.
    public var timeConstantMicroseconds: Double
    /// Register writes, in order, that configure the chip for signed RTP in `loop`.
    public var setupWrites: [SetupWrite]

    public struct SetupWrite: Sendable, Equatable {
        public var register: UInt8
        public var value: UInt8
    }

    /// The lowest level the drive takes: −1 in open loop (reverse drive is the
    /// brake), 0 in closed loop (the chip reads anything below mid-scale as zero
    /// drive and brakes on its own).
    public var minimumLevel: Double { loop == .open ? -1 : 0 }

    /// `calibration`: what auto-calibration left in the chip for this actuator on this
    /// board (nil: open loop, as without). With it an LRA runs closed loop; it must be
    /// an LRA's passed calibration at the RATED_VOLTAGE this profile gives, or the
    /// reference it restores would belong to something else.
    public init(profile: ActuatorProfile, variant: DeviceVariant, calibration: AutoCalibrationResult? = nil) throws(CompilationError) {
        self.profile = profile
        self.variant = variant
        if let calibration {
            guard calibration.passed else { throw .calibrationMismatch("the stored auto-calibration failed (DIAG_RESULT = 1)") }
            guard calibration.isLRA == (profile.kind == .lra) else {
                throw .calibrationMismatch(
                    "it was measured with N_ERM_LRA set for an \(calibration.isLRA ? "LRA" : "ERM"); \(profile.id) is an \(profile.kind.rawValue)")
            }
        }
        switch profile.kind {
        case .lra:
            guard let f0 = profile.lra?.resonantFrequencyHz, f0 > 0 else { throw .incompleteProfile("LRA without a resonant frequency") }
            let q = profile.lra?.qualityFactor ?? 10
            if let calibration {
                let setup = try Self.closedLoopLRA(profile: profile, variant: variant, calibration: calibration, nominalHz: f0)
                (resonantFrequencyHz, fullScaleVolts, setupWrites) = (setup.resonanceHz, setup.fullScaleVolts, setup.writes)
                loop = .closed
                self.calibration = calibration
                shaping = .rampedSteps
            } else {
                let settings = try Self.settings(profile, variant, loop: .open)
                let clamp = DRV2605Formulas.lraOpenLoopClampCode(rmsVolts: profile.maxVoltage, frequencyHz: f0)
                resonantFrequencyHz = f0
                fullScaleVolts = DRV2605Formulas.lraOpenLoopVoltage(code: clamp, frequencyHz: f0)
                loop = .open
                self.calibration = nil
                shaping = variant.isLVariant ? .openLoopFrequency : .overdriveAndBrakeEmphasis
                setupWrites = Self.openLoopWrites(settings, clamp: clamp)
                if shaping == .openLoopFrequency {
                    setupWrites.append(SetupWrite(register: RegisterAddress.openLoopLRAPeriod.rawValue, value: DRV2605Formulas.openLoopPeriodCode(frequencyHz: f0)))
                }
            }
            timeConstantMicroseconds = q / (Double.pi * (resonantFrequencyHz ?? f0)) * 1e6
        case .erm:
            guard let tau = profile.erm?.timeConstantMilliseconds, tau > 0 else { throw .incompleteProfile("ERM without a time constant") }
            let settings = try Self.settings(profile, variant, loop: .open)
            resonantFrequencyHz = nil
            timeConstantMicroseconds = tau * 1000
            let driveTime = DRV2605Formulas.ermDriveTimeSeconds(code: settings.control1.driveTime)
            let (idiss, blank) = DriveSettings.idissAndBlankingSeconds(control2: settings.control2, isLRA: false)
            let clamp = DRV2605Formulas.ermOpenLoopClampCode(
                averageVolts: profile.maxVoltage, driveTimeSeconds: driveTime, idissSeconds: idiss, blankingSeconds: blank)
            fullScaleVolts = DRV2605Formulas.ermOpenLoopVoltage(
                code: clamp, driveTimeSeconds: driveTime, idissSeconds: idiss, blankingSeconds: blank)
            loop = .open
            self.calibration = nil
            shaping = .overdriveAndBrakeEmphasis
            setupWrites = Self.openLoopWrites(settings, clamp: clamp)
        }
        ratedLevel = loop == .closed ? 1 : (fullScaleVolts > 0 ? min(1, profile.ratedVoltage / fullScaleVolts) : 0)
    }

    /// The setup block as timed commands, all at `time`.
    public func setupCommands(at time: Int64) -> [TimedCommand] {
        setupWrites.map { TimedCommand(time: time, command: .register($0.register, $0.value)) }
    }

    private static func settings(_ profile: ActuatorProfile, _ variant: DeviceVariant, loop: ActuatorProfile.Loop) throws(CompilationError)
        -> DriveSettings
    {
        var p = profile
        p.drive.loop = loop
        do { return try DriveSettings(profile: p, variant: variant) } catch { throw .invalidProfile(String(describing: error)) }
    }

    /// RATED_VOLTAGE, OD_CLAMP, FEEDBACK_CONTROL, CONTROL1-4, with signed RTP.
    private static func openLoopWrites(_ settings: DriveSettings, clamp: UInt8) -> [SetupWrite] {
        var control3 = settings.control3
        control3.rtpUnsigned = false
        return [
            SetupWrite(register: RegisterAddress.ratedVoltage.rawValue, value: settings.ratedVoltage),
            SetupWrite(register: RegisterAddress.overdriveClamp.rawValue, value: clamp),
            SetupWrite(register: RegisterAddress.feedbackControl.rawValue, value: settings.feedback.rawValue),
            SetupWrite(register: RegisterAddress.control1.rawValue, value: settings.control1.rawValue),
            SetupWrite(register: RegisterAddress.control2.rawValue, value: settings.control2.rawValue),
            SetupWrite(register: RegisterAddress.control3.rawValue, value: control3.rawValue),
            SetupWrite(register: RegisterAddress.control4.rawValue, value: settings.control4.rawValue),
        ]
    }

    /// Closed-loop LRA: the datasheet's closed-loop settings for the profile (RATED_VOLTAGE
    /// from its rated RMS, OD_CLAMP its maximum as a peak, LRA_OPEN_LOOP = 0), the
    /// calibration block 0x16...0x1A restored in register order with the profile's
    /// brake factor and loop gain around the calibrated BEMF_GAIN, bidirectional signed
    /// RTP, and DRIVE_TIME at the resonance calibration measured, where the chip starts
    /// before it has locked.
    private static func closedLoopLRA(profile: ActuatorProfile, variant: DeviceVariant, calibration: AutoCalibrationResult, nominalHz: Double)
        throws(CompilationError) -> (writes: [SetupWrite], resonanceHz: Double, fullScaleVolts: Double)
    {
        let settings = try settings(profile, variant, loop: .closed)
        // A_CAL_BEMF is the back-EMF the rated voltage produced: it is a reference only
        // at the RATED_VOLTAGE it was measured at.
        guard calibration.ratedVoltageCode == settings.ratedVoltage else {
            throw .calibrationMismatch(
                "it was measured at RATED_VOLTAGE \(calibration.ratedVoltageCode); \(profile.id) at \(profile.ratedVoltage) V rms gives \(settings.ratedVoltage)")
        }
        var control1 = settings.control1
        let resonance = calibration.resonanceHz ?? nominalHz
        let halfPeriods = DRV2605Formulas.lraDriveTimeSeconds(code: 0)...DRV2605Formulas.lraDriveTimeSeconds(code: Control1Register.driveTimeField.maxValue)
        guard halfPeriods.contains(0.5 / resonance) else {
            throw .calibrationMismatch("it measured a resonance of \(resonance) Hz, which DRIVE_TIME cannot start at")
        }
        control1.driveTime = DRV2605Formulas.lraDriveTimeCode(frequencyHz: resonance)
        var control2 = settings.control2
        control2.bidirectionalInput = true
        var control3 = settings.control3
        control3.rtpUnsigned = false
        control3.lraOpenLoop = false
        var feedback = settings.feedback
        feedback.backEMFGain = calibration.backEMFGainCode
        let writes = [
            SetupWrite(register: RegisterAddress.ratedVoltage.rawValue, value: settings.ratedVoltage),
            SetupWrite(register: RegisterAddress.overdriveClamp.rawValue, value: settings.overdriveClamp),
            SetupWrite(register: RegisterAddress.autoCalibrationCompensation.rawValue, value: calibration.compensationCode),
            SetupWrite(register: RegisterAddress.autoCalibrationBackEMF.rawValue, value: calibration.backEMFCode),
            SetupWrite(register: RegisterAddress.feedbackControl.rawValue, value: feedback.rawValue),
            SetupWrite(register: RegisterAddress.control1.rawValue, value: control1.rawValue),
            SetupWrite(register: RegisterAddress.control2.rawValue, value: control2.rawValue),
            SetupWrite(register: RegisterAddress.control3.rawValue, value: control3.rawValue),
            SetupWrite(register: RegisterAddress.control4.rawValue, value: settings.control4.rawValue),
        ]
        let rated = DRV2605Formulas.lraRatedVoltage(
            code: settings.ratedVoltage, frequencyHz: resonance, sampleTimeSeconds: control2.sampleTimeMicroseconds * 1e-6)
        return (writes, resonance, rated)
    }
}
