import Actuators
import DRV2605
import DRV2605Model
import Testing

struct BringUpTests {
    @Test func bringUpDetectsResetsLeavesStandbyAndWritesTheProfile() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        let settings = try await bench.driver.bringUp(profile: bench.profile)
        let chip = bench.chip
        #expect(bench.driver.variant == .drv2605L)
        // Register level: the values worked by hand in FormulaTests, in the chip.
        #expect(chip.peek(.ratedVoltage) == 0x53)
        #expect(chip.peek(.overdriveClamp) == DRV2605Formulas.closedLoopClampCode(peakVolts: 3.0))
        #expect(settings.ratedVoltage == 0x53)
        #expect(Control1Register(rawValue: chip.peek(.control1)).driveTime == 24)
        let fb = FeedbackControlRegister(rawValue: chip.peek(.feedbackControl))
        #expect(fb.isLRA && fb.brakeFactor == .x3 && fb.loopGain == .medium)
        #expect(!ModeRegister(rawValue: chip.peek(.mode)).standby)
        #expect(!Control3Register(rawValue: chip.peek(.control3)).lraOpenLoop)
        #expect(LibrarySelectionRegister(rawValue: chip.peek(.librarySelection)).library == .lra)
        // VBAT reads the 5 V supply: 228 -> 5.007 V.
        #expect(abs(try await bench.driver.supplyVoltage() - 5.007) < 0.01)
        // Acceleration level: bring-up alone does not move the actuator.
        #expect(chip.trace.peakG() == 0)
    }

    @Test func closedLoopERMBringUpClearsTheResetOpenLoopBit() async throws {
        var bench = try TestBench(profile: "pmd-307-103")
        try await bench.driver.bringUp(profile: bench.profile)
        // CONTROL3 resets to 0xA0 with ERM_OPEN_LOOP set.
        #expect(!Control3Register(rawValue: bench.chip.peek(.control3)).ermOpenLoop)
        #expect(bench.chip.peek(.ratedVoltage) == 0x8E)
        #expect(bench.chip.peek(.overdriveClamp) == 174)
    }

    @Test func resetPollsDevResetUntilTheChipClearsIt() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.detect()
        try await bench.driver.setStandby(false)
        try await bench.driver.write(ByteRegisterWrite.ratedVoltage(0x10))
        let before = bench.chip.nowMicroseconds
        try await bench.driver.reset()
        #expect(bench.chip.nowMicroseconds - before >= DRV2605Chip.resetMicroseconds)
        #expect(bench.chip.peek(.ratedVoltage) == 0x3E)
        #expect(ModeRegister(rawValue: bench.chip.peek(.mode)).standby)
        #expect(!ModeRegister(rawValue: bench.chip.peek(.mode)).devReset)
    }

    @Test func detectNamesEachVariantByDeviceID() async throws {
        for variant in DeviceVariant.allCases {
            var bench = try TestBench(profile: "pmd-c10-100", variant: variant)
            #expect(try await bench.driver.detect() == variant)
        }
    }
}

/// RATED_VOLTAGE as a typed register for the reset test.
struct ByteRegisterWrite: DRV2605Register {
    static let address = RegisterAddress.ratedVoltage
    var rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }
    static func ratedVoltage(_ v: UInt8) -> Self { Self(rawValue: v) }
}
