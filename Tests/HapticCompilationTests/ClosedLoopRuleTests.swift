import Testing
@testable import HapticCompilation

/// `DriveCompiler`'s rules in closed loop, worked by hand on `Targets().lraClosed`
/// (the C10-100 with `Calibrations.lra`: full scale = the rated amplitude, resonance
/// 191.63 Hz, period 5218.38 µs, τ = 19932.74 µs; DriveTargetTests derives them).
@Suite struct ClosedLoopRuleTests {
    let target: DriveTarget
    init() throws { target = try Targets().lraClosed }

    // DRV2605L-Q1 datasheet (SLOS874A), "Closed-Loop Mode, Bidirectional": "The reference level for
    // steady-state full-scale drive is set by the RATED_VOLTAGE[7:0] bit".
    @Test("intensity plays at I² of full scale, which closed loop makes the rated amplitude")
    func intensityMapsToItsSquareOfTheRatedAmplitude() {
        let c = DriveCompiler(target: target)
        // 127 × 1 = 127; 127 × 0.25 = 31.75 → 32; 127 × 0.01 = 1.27 → 1.
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 1)) == 127)
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 0.5)) == 32)
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 0.1)) == 1)
    }

    @Test("a sharp step goes straight to its level: the chip overdrives and brakes it by itself")
    func aSharpStepIsHandedToTheChipAsIs() {
        var c = DriveCompiler(target: target)
        #expect(c.step(time: 0, intensity: 1, sharpness: 1) == [TimedCommand(time: 0, command: .rtp(127))])
        #expect(c.step(time: 1000, intensity: 0, sharpness: 0) == [TimedCommand(time: 1000, command: .rtp(0))])
    }

    @Test("a dull step ramps over (1 − S) × Δ × τ, a rise with the sharpness of what starts, a fall with that of what ends")
    func aDullStepRamps() {
        var c = DriveCompiler(target: target)
        // Rise 0 → 1 at S = 0: a ramp of 1 × 1 × 19932.74 → 19933 µs, followed at each step:
        // 5000 / 19933 × 127 = 31.86 → 32; 10000 / 19933 × 127 = 63.71 → 64; 127 at its end.
        #expect(c.step(time: 0, intensity: 1, sharpness: 0) == [TimedCommand(time: 0, command: .rtp(0))])
        #expect(c.step(time: 5000, intensity: 1, sharpness: 0) == [TimedCommand(time: 5000, command: .rtp(32))])
        #expect(c.step(time: 10000, intensity: 1, sharpness: 0) == [TimedCommand(time: 10000, command: .rtp(64))])
        #expect(c.step(time: 20000, intensity: 1, sharpness: 0) == [TimedCommand(time: 19933, command: .rtp(127))])
        // The sound ends; the fall takes the sharpness of what ended (0), not the
        // silence's (1): 127 × (1 − 10000 / 19933) = 63.29 → 63, then 0 at 30000 + 19933.
        #expect(c.step(time: 30000, intensity: 0, sharpness: 1) == [])
        #expect(c.step(time: 40000, intensity: 0, sharpness: 1) == [TimedCommand(time: 40000, command: .rtp(63))])
        #expect(c.step(time: 50000, intensity: 0, sharpness: 1) == [TimedCommand(time: 49933, command: .rtp(0))])
        #expect(c.isSettled)
    }

    @Test("half sharp: half the ramp")
    func halfSharpHalvesTheRamp() {
        var c = DriveCompiler(target: target)
        // Rise 0 → 0.25 (I = 0.5, past the 0.1 threshold) at S = ½: (1 − ½) × 0.25 ×
        // 19932.74 = 2491.6 → 2492 µs; at 1000: 0.25 × 1000 / 2492 × 127 = 12.74 → 13.
        #expect(c.step(time: 0, intensity: 0.5, sharpness: 0.5) == [TimedCommand(time: 0, command: .rtp(0))])
        #expect(c.step(time: 1000, intensity: 0.5, sharpness: 0.5) == [TimedCommand(time: 1000, command: .rtp(13))])
        #expect(c.step(time: 3000, intensity: 0.5, sharpness: 0.5) == [TimedCommand(time: 2492, command: .rtp(32))])
    }

    @Test("a transient is an overdrive of (3 − S) resonance periods and no brake phase: the chip brakes it, phase-locked")
    func transientsHaveNoHostBrake() {
        var c = DriveCompiler(target: target)
        // S = ½: 2.5 × 5218.38 = 13045.95 → 13046 µs at 127, then 0 at 500 + 13046.
        #expect(c.burstDurations(sharpness: 0.5) == (13046, 0))
        let t = DriveCompiler.Transient(time: 500, intensity: 1, sharpness: 0.5)
        #expect(c.step(time: 1000, intensity: 0, sharpness: 0, transients: [t]) == [TimedCommand(time: 500, command: .rtp(127))])
        #expect(c.step(time: 14000, intensity: 0, sharpness: 0) == [TimedCommand(time: 13546, command: .rtp(0))])
    }

    @Test("a transient on a continuous vibration adds to it and returns to it; the drive is never below mid-scale")
    func aTransientReturnsToTheContinuousLevel() {
        var c = DriveCompiler(target: target)
        // Continuous I = 0.5 at S = 1: 32 at once. Transient I = 0.5, S = 1: 0.25 + 0.25 =
        // 0.5 → 63.5 → 64 for 2 periods = 10436.76 → 10437 µs, then 32 again.
        #expect(c.step(time: 0, intensity: 0.5, sharpness: 1) == [TimedCommand(time: 0, command: .rtp(32))])
        let t = DriveCompiler.Transient(time: 1000, intensity: 0.5, sharpness: 1)
        #expect(c.step(time: 1000, intensity: 0.5, sharpness: 1, transients: [t]) == [TimedCommand(time: 1000, command: .rtp(64))])
        #expect(c.step(time: 12000, intensity: 0.5, sharpness: 1) == [TimedCommand(time: 11437, command: .rtp(32))])
        var all: [TimedCommand] = []
        for k in 0...200 {
            all += c.step(time: 12000 + Int64(k) * 1000, intensity: k % 50 < 25 ? 1 : 0, sharpness: 1,
                          transients: k % 10 == 0 ? [.init(time: 12000 + Int64(k) * 1000, intensity: 1, sharpness: 0)] : [])
        }
        #expect(!all.contains { if case .rtp(let a) = $0.command { a < 0 } else { false } })
    }
}
