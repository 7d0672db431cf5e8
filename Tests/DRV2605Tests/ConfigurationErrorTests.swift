import Actuators
import DRV2605
import DRV2605Model
import Testing

struct ConfigurationErrorTests {
    @Test func anLRABeyondDriveTimesRangeIsAnInvalidConfiguration() throws {
        var p = try TestBench.profile("pmd-c10-100")
        p.lra?.resonantFrequencyHz = 60  // half period 8.3 ms; DRIVE_TIME reaches 0.5...3.6 ms
        #expect(throws: DRV2605Error.self) { try DriveSettings(profile: p) }
    }

    @Test func effectIdOutsideTheROMIsRejected() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        await #expect(throws: DRV2605Error.invalidSequence("slot 2: effect 124 is outside 1...123")) {
            try await bench.driver.loadSequence([.effect(ROMEffectID(rawValue: 1)), .effect(ROMEffectID(rawValue: 124))], library: .lra)
        }
    }

    @Test func aDRV2604HasNoROMLibrariesToPlay() async throws {
        var bench = try TestBench(profile: "pmd-c10-100", variant: .drv2604)
        await #expect(throws: DRV2605Error.noROMLibraries(.drv2604)) {
            try await bench.driver.loadSequence([.effect(ROMEffectID(rawValue: 1))], library: .lra)
        }
    }

    @Test func openLoopLRASettingsProgramTheOpenLoopPeriodOnTheLOnly() throws {
        var p = try TestBench.profile("pmd-c10-100")
        p.drive.loop = .open
        let l = try DriveSettings(profile: p, variant: .drv2605L)
        // 175 Hz: 1 / (175 x 98.46 us) = 58.04 -> 58; OD_CLAMP = open-loop full scale (101, see FormulaTests)
        #expect(l.openLoopPeriod == 58 && l.overdriveClamp == 101 && l.control3.lraOpenLoop)
        #expect(try DriveSettings(profile: p, variant: .drv2605).openLoopPeriod == nil)
    }

    @Test func openLoopERMClampUsesTheDutyEquationAndLibraryA() throws {
        var p = try TestBench.profile("pmd-307-103")
        p.drive.loop = .open
        let s = try DriveSettings(profile: p)
        // 3.7 V over the reset timing (DRIVE_TIME 19, IDISS/BLANK code 1) = 188, worked in FormulaTests.
        #expect(s.overdriveClamp == 188 && s.control3.ermOpenLoop && s.library == .ermA)
    }
}
