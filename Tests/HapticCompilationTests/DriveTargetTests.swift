import DRV2605
import Testing
@testable import HapticCompilation

/// The chip setup and the derived numbers, worked by hand from the datasheet
/// equations in DRV2605Formulas.
@Suite struct DriveTargetTests {
    @Test func anLRAOnTheLPartRunsOpenLoopWithOverdriveHeadroomAndSharpnessAsFrequency() throws {
        let t = try DriveTarget(profile: Profiles.lra, variant: .drv2605L)
        #expect(t.shaping == .openLoopFrequency)
        // OD_CLAMP = 3.0 / (21.32 mV × √(1 − 800 µs × 175)) = 3.0 / 0.0197713 = 151.7 → 152;
        // full scale = 152 × 0.0197713 = 3.00524 V; rated level = 2 / 3.00524 = 0.66551.
        #expect(t.setupWrites.first { $0.register == 0x17 }?.value == 152)
        #expect(abs(t.fullScaleVolts - 3.00524) < 1e-4)
        #expect(abs(t.ratedLevel - 0.66551) < 1e-4)
        // Q / (π f0) = 12 / (π × 175) = 21.83 ms.
        #expect(abs(t.timeConstantMicroseconds - 21826.7) < 1)
        // OL_LRA_PERIOD = 1 / (175 × 98.46 µs) = 58.04 → 58, written last.
        #expect(t.setupWrites.last == .init(register: 0x20, value: 58))
        // CONTROL3: LRA_OPEN_LOOP (bit 0) set, DATA_FORMAT_RTP (bit 3) clear = signed.
        let control3 = try #require(t.setupWrites.first { $0.register == 0x1D }?.value)
        #expect(control3 & 0x01 == 0x01 && control3 & 0x08 == 0)
        // FEEDBACK_CONTROL: N_ERM_LRA (bit 7) set.
        #expect((t.setupWrites.first { $0.register == 0x1A }?.value ?? 0) & 0x80 == 0x80)
    }

    @Test func anLRAOnThePlainDRV2605GetsEmphasisAndNoPeriodRegister() throws {
        let t = try DriveTarget(profile: Profiles.lra, variant: .drv2605)
        #expect(t.shaping == .overdriveAndBrakeEmphasis)
        #expect(!t.setupWrites.contains { $0.register == 0x20 })
    }

    @Test func anERMRunsOpenLoopWithTheClampAtItsMaximumVoltage() throws {
        let t = try DriveTarget(profile: Profiles.erm, variant: .drv2605L)
        #expect(t.shaping == .overdriveAndBrakeEmphasis)
        // Reset CONTROL1 DRIVE_TIME 19 → 1 + 0.2 × 19 = 4.8 ms; IDISS = BLANKING = 75 µs:
        // duty (4.8 − 0.3) / (4.8 + 0.15) = 0.909091; OD_CLAMP = 3.7 / (21.64 mV × 0.909091)
        // = 188.08 → 188; full scale 3.69847 V; rated level 3 / 3.69847 = 0.81115.
        #expect(t.setupWrites.first { $0.register == 0x17 }?.value == 188)
        #expect(abs(t.ratedLevel - 0.81115) < 1e-4)
        #expect(t.timeConstantMicroseconds == 35000)
        let control3 = try #require(t.setupWrites.first { $0.register == 0x1D }?.value)
        // ERM_OPEN_LOOP is bit 5.
        #expect(control3 & 0x20 == 0x20 && control3 & 0x08 == 0)
    }

    // DRV2605L-Q1 datasheet (SLOS874A), "Closed-Loop Mode, Bidirectional": "The reference
    // level for steady-state full-scale drive is set by the RATED_VOLTAGE[7:0] bit
    // (when auto calibration is performed). The output voltage can momentarily exceed
    // the rated voltage for automatic overdrive and braking, but does not exceed the
    // OD_CLAMP[7:0] voltage."
    @Test("a calibrated LRA runs closed loop: the calibration block restored, OD_CLAMP at the maximum as a peak, RTP full scale at the rated voltage")
    func aCalibratedLRARunsClosedLoop() throws {
        let t = try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: Calibrations.lra)
        #expect(t.loop == .closed && t.shaping == .rampedSteps && t.calibration == Calibrations.lra)
        // RATED_VOLTAGE = 2.0 × √(1 − (4 × 300 µs + 300 µs) × 175) / 20.58 mV = 83.46 → 83;
        // OD_CLAMP = 3.0 V peak / 21.22 mV = 141.38 → 141; then A_CAL_COMP, A_CAL_BEMF and
        // FEEDBACK_CONTROL as calibrated (0xA4: LRA, brake 3x, medium, BEMF_GAIN 0), in
        // register order 0x16...0x1A as the datasheet's restore writes them.
        // CONTROL1: STARTUP_BOOST kept, DRIVE_TIME for the measured 191.63 Hz:
        // (1 / (2 × 191.63) − 0.5 ms) / 0.1 ms = 21.09 → 21 (the profile's 175 Hz gives 24): 0x95.
        // CONTROL2 0xF5: BIDIR_INPUT (bit 7) set. CONTROL3 0x80: NG_THRESH kept,
        // ERM_OPEN_LOOP, DATA_FORMAT_RTP (signed) and LRA_OPEN_LOOP clear. CONTROL4 0x20: 500 ms.
        #expect(t.setupWrites.map { [$0.register, $0.value] } == [
            [0x16, 83], [0x17, 141], [0x18, 15], [0x19, 149], [0x1A, 0xA4], [0x1B, 0x95], [0x1C, 0xF5], [0x1D, 0x80], [0x1E, 0x20],
        ])
        // No OL_LRA_PERIOD: the chip follows the resonance itself.
        #expect(!t.setupWrites.contains { $0.register == 0x20 })
        #expect(t.ratedLevel == 1 && t.minimumLevel == 0)
        // Full scale = 83 × 20.58 mV / √(1 − 1.5 ms × 191.63) = 2.02355 V rms.
        #expect(abs(t.fullScaleVolts - 2.02355) < 1e-4)
        #expect(abs((t.resonantFrequencyHz ?? 0) - 191.630) < 1e-3)
        // Q / (π f) at the measured resonance: 12 / (π × 191.63) = 19.933 ms.
        #expect(abs(t.timeConstantMicroseconds - 19932.7) < 1)
    }

    @Test("without a measured resonance the closed loop starts at the profile's")
    func closedLoopWithoutAMeasuredResonanceUsesTheProfiles() throws {
        var calibration = Calibrations.lra
        calibration.lraPeriodCode = 0
        let t = try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: calibration)
        #expect(t.resonantFrequencyHz == 175)
        // (1 / 350 − 0.5 ms) / 0.1 ms = 23.57 → 24: CONTROL1 0x98.
        #expect(t.setupWrites.first { $0.register == 0x1B }?.value == 0x98)
    }

    @Test("the plain DRV2605 closes the loop the same way")
    func thePlainDRV2605ClosesTheLoopToo() throws {
        let t = try DriveTarget(profile: Profiles.lra, variant: .drv2605, calibration: Calibrations.lra)
        #expect(t.loop == .closed && t.shaping == .rampedSteps)
        #expect(t.setupWrites.first { $0.register == 0x19 }?.value == 149)
    }

    @Test("calibration results that belong to something else are refused, saying what differs")
    func mismatchedCalibrationIsRefused() throws {
        // Another rated voltage: 2.5 V gives RATED_VOLTAGE 104, the reference was measured at 83.
        var louder = Profiles.lra
        louder.ratedVoltage = 2.5
        #expect(throws: CompilationError.calibrationMismatch(
            "it was measured at RATED_VOLTAGE 83; test-lra at 2.5 V rms gives 104")) {
            try DriveTarget(profile: louder, variant: .drv2605L, calibration: Calibrations.lra)
        }
        // An ERM's results (N_ERM_LRA clear) for an LRA.
        let erm = AutoCalibrationResult(
            ratedVoltageCode: 142, overdriveClampCode: 174, compensationCode: 10, backEMFCode: 120, feedbackControl: 0x24, lraPeriodCode: 0)
        #expect(throws: CompilationError.self) { try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: erm) }
        // A resonance DRIVE_TIME cannot start at (LRA_PERIOD 5: 2 kHz).
        var odd = Calibrations.lra
        odd.lraPeriodCode = 5
        #expect(throws: CompilationError.self) { try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: odd) }
        // A failed run.
        var failed = Calibrations.lra
        failed.passed = false
        #expect(throws: CompilationError.self) { try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: failed) }
    }

    @Test("an ERM stays open loop with its calibration: the same setup as without")
    func aCalibratedERMStaysOpenLoop() throws {
        let calibration = AutoCalibrationResult(
            ratedVoltageCode: 142, overdriveClampCode: 174, compensationCode: 10, backEMFCode: 120, feedbackControl: 0x24, lraPeriodCode: 0)
        let calibrated = try DriveTarget(profile: Profiles.erm, variant: .drv2605L, calibration: calibration)
        let plain = try DriveTarget(profile: Profiles.erm, variant: .drv2605L)
        #expect(calibrated == plain && calibrated.loop == .open && calibrated.calibration == nil)
    }
}
