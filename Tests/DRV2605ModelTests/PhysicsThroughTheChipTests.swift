import Actuators
import DRV2605
import DRV2605Model
import Testing

/// The physical claims: overdrive shortens the rise, braking shortens the ring-down,
/// an off-resonance open-loop LRA shakes less, closed loop finds the true resonance.
struct PhysicsThroughTheChipTests {
    /// Time from the RTP step to 90 % of the steady amplitude.
    func riseTime(_ chip: DRV2605Chip) throws -> UInt64 {
        let start = chip.nowMicroseconds
        try ModelBench.rtp(chip, 127)
        chip.advance(milliseconds: 400)
        let steady = chip.trace.peakG(from: chip.nowMicroseconds - 50_000)
        return chip.trace.firstTime(reaching: 0.9, of: steady, from: start, windowMicroseconds: 3_000)! - start
    }

    /// Time from RTP 0 until the envelope stays under 10 % of what it was.
    func ringDown(_ chip: DRV2605Chip) throws -> UInt64 {
        try ModelBench.rtp(chip, 127)
        chip.advance(milliseconds: 400)
        let steady = chip.trace.peakG(from: chip.nowMicroseconds - 50_000)
        let stop = chip.nowMicroseconds
        try ModelBench.write(chip, .rtpInput, 0)
        chip.advance(milliseconds: 600)
        return chip.trace.lastTime(above: 0.1 * steady, from: stop, windowMicroseconds: 3_000)! - stop
    }

    @Test(arguments: ["pmd-c10-100", "pmd-307-103"])
    func overdriveShortensTheRise(_ name: String) throws {
        let withOverdrive = try ModelBench.configuredChip(name)
        // Same part with the clamp at the rated voltage: no room to overdrive.
        let without = try ModelBench.configuredChip(name) { $0.maxVoltage = $0.ratedVoltage }
        let fast = try riseTime(withOverdrive)
        let slow = try riseTime(without)
        #expect(fast < slow * 3 / 4, "rise with overdrive \(fast) us, without \(slow) us")
    }

    @Test(arguments: ["pmd-c10-100", "pmd-307-103"])
    func brakingShortensTheRingDown(_ name: String) throws {
        let braked = try ModelBench.configuredChip(name) { $0.drive.brakeFactor = 4 }
        let coasting = try ModelBench.configuredChip(name) { $0.drive.brakeFactor = nil }
        let fast = try ringDown(braked)
        let slow = try ringDown(coasting)
        #expect(fast < slow / 2, "ring-down braked \(fast) us, coasting \(slow) us")
    }

    @Test func openLoopLRAOffResonanceGivesLessAcceleration() throws {
        func steadyOpenLoop(driveAt hz: Double) throws -> Double {
            let chip = try ModelBench.configuredChip("pmd-c10-100") { $0.drive.loop = .open }
            try ModelBench.write(chip, .openLoopLRAPeriod, DRV2605Formulas.openLoopPeriodCode(frequencyHz: hz))
            try ModelBench.rtp(chip, 127)
            chip.advance(milliseconds: 500)
            return chip.trace.peakG(from: chip.nowMicroseconds - 100_000)
        }
        let atResonance = try steadyOpenLoop(driveAt: 175)
        let off = try steadyOpenLoop(driveAt: 210)
        #expect(atResonance > 0.5)
        #expect(off < 0.6 * atResonance, "at resonance \(atResonance) g, 20 % off \(off) g")
    }

    @Test func closedLoopTracksTheActualResonanceNotTheDriveTimeGuess() throws {
        // The profile says 175 Hz (DRIVE_TIME 24) but this unit resonates at 190 Hz.
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        var unit = try ModelBench.profile("pmd-c10-100")
        unit.lra?.resonantFrequencyHz = 190
        chip.load = .actuator(Actuator(profile: unit))
        try ModelBench.rtp(chip, 127)
        chip.advance(milliseconds: 200)
        #expect(abs(DRV2605Formulas.resonanceHz(lraPeriodCode: chip.peek(.lraPeriod))! - 190) < 3)
    }

    @Test func lraPeriodHoldsItsLastValueWhenDrivingStops() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.rtp(chip, 127)
        chip.advance(milliseconds: 100)
        let measured = chip.peek(.lraPeriod)
        try ModelBench.write(chip, .mode, 0)
        chip.advance(milliseconds: 100)
        #expect(measured == DRV2605Formulas.lraPeriodCode(frequencyHz: 175))
        #expect(chip.peek(.lraPeriod) == measured)
    }

    @Test func ermOpenLoopNegativeRTPBrakesFasterThanCoasting() throws {
        func stopTime(brake: Bool) throws -> UInt64 {
            let chip = try ModelBench.configuredChip("pmd-307-103") { $0.drive.loop = .open }
            try ModelBench.rtp(chip, 100)
            chip.advance(milliseconds: 300)
            let stop = chip.nowMicroseconds
            try ModelBench.write(chip, .rtpInput, UInt8(bitPattern: brake ? -100 : 0))
            chip.advance(milliseconds: 40)
            try ModelBench.write(chip, .rtpInput, 0)
            chip.advance(milliseconds: 400)
            return chip.trace.lastTime(above: 0.05, from: stop, windowMicroseconds: 3_000)! - stop
        }
        #expect(try stopTime(brake: true) < stopTime(brake: false) / 2)
    }

    @Test func supplyBelowTheClampLimitsTheDrive() throws {
        let chip = try ModelBench.configuredChip("pmd-307-103")
        chip.supplyVolts = 2.5
        try ModelBench.rtp(chip, 127)
        chip.advance(milliseconds: 300)
        #expect(chip.trace.driveVolts.max()! <= 2.5)
        #expect(DRV2605Formulas.supplyVolts(code: chip.peek(.supplyVoltage)) < 2.6)
    }
}
