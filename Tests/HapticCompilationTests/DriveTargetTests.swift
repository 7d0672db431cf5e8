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
}
