import Testing
@testable import HapticCompilation

/// Rule 3 of `DriveCompiler`: a transient's burst is added to the continuous drive
/// it lands on, worked by hand. The rule it follows is the pattern layer's
/// (README, "Rendering rules"): "Overlapping continuous events add intensities,
/// clipped at 1; sharpness is the intensity-weighted mean of the events playing."
/// Levels are of full scale; RTP = round(127 × level); the LRA's rated level is
/// 0.66551, the ERM's 0.81115 (DriveTargetTests).
@Suite struct TransientMixingTests {
    let targets: Targets
    init() throws { targets = try Targets() }

    @Test("a burst adds on top of the continuous drive and its brake returns to it")
    func aBurstAddsToTheContinuousDrive() {
        var c = DriveCompiler(target: targets.lraPlain)
        // c = 0.66551 × 0.5² = 0.16638 → 21 (sharpness 0: no emphasis).
        #expect(c.step(time: 0, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 0, command: .rtp(21))])
        // I = 0.5 → I² = 0.25: overdrive 0.41638 → 52.88 → 53 for 2 periods of 175 Hz
        // (11429 µs), brake a = min(0.25, 1 − 0.16638) = 0.25: −0.08362 → −10.62 → −11
        // for one period (5714 µs), then the continuous 21 again.
        let t = DriveCompiler.Transient(time: 1000, intensity: 0.5, sharpness: 1)
        #expect(c.step(time: 1000, intensity: 0.5, sharpness: 0, transients: [t]) == [TimedCommand(time: 1000, command: .rtp(53))])
        #expect(c.step(time: 13000, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 12429, command: .rtp(-11))])
        #expect(c.step(time: 19000, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 18143, command: .rtp(21))])
    }

    @Test("a burst past full scale is clipped and its brake takes back only what it added")
    func aClippedBurstBrakesOnlyItsOwnShare() {
        var c = DriveCompiler(target: targets.lraPlain)
        _ = c.step(time: 0, intensity: 1, sharpness: 0)  // 0.66551 → 85
        // Overdrive 0.66551 + 1, clipped at 1 → 127: it adds a = 0.33449. The brake is
        // 0.66551 − 0.33449 = 0.33102 → 42.04 → 42: the continuous vibration is never
        // driven in reverse.
        let t = DriveCompiler.Transient(time: 1000, intensity: 1, sharpness: 1)
        #expect(c.step(time: 1000, intensity: 1, sharpness: 0, transients: [t]) == [TimedCommand(time: 1000, command: .rtp(127))])
        #expect(c.step(time: 13000, intensity: 1, sharpness: 0) == [TimedCommand(time: 12429, command: .rtp(42))])
        #expect(c.step(time: 19000, intensity: 1, sharpness: 0) == [TimedCommand(time: 18143, command: .rtp(85))])
    }

    @Test("the continuous drive under a burst is followed, and the brake share is taken when the overdrive ends")
    func theContinuousDriveIsFollowedUnderABurst() {
        var c = DriveCompiler(target: targets.lraPlain)
        _ = c.step(time: 0, intensity: 0.5, sharpness: 0)  // 21
        let t = DriveCompiler.Transient(time: 1000, intensity: 0.5, sharpness: 1)
        _ = c.step(time: 1000, intensity: 0.5, sharpness: 0, transients: [t])  // 53
        // The continuous input rises to 0.7: c = 0.66551 × 0.49 = 0.32610, under the
        // overdrive 0.57610 → 73.16 → 73 (sharpness 0: the rise gets no emphasis).
        #expect(c.step(time: 5000, intensity: 0.7, sharpness: 0) == [TimedCommand(time: 5000, command: .rtp(73))])
        // Brake: a = min(0.25, 1 − 0.32610) = 0.25 → 0.07610 → 9.66 → 10; then c → 41.41 → 41.
        #expect(c.step(time: 13000, intensity: 0.7, sharpness: 0) == [TimedCommand(time: 12429, command: .rtp(10))])
        #expect(c.step(time: 19000, intensity: 0.7, sharpness: 0) == [TimedCommand(time: 18143, command: .rtp(41))])
    }

    @Test("during a burst the LRA's drive frequency is that of the intensity-weighted sharpness")
    func theBurstFrequencyIsTheMixedSharpness() {
        var c = DriveCompiler(target: targets.lra)
        // Continuous I = 1, S = 0: 85 at 147.16 Hz (period code 69).
        #expect(c.step(time: 0, intensity: 1, sharpness: 0) == [
            TimedCommand(time: 0, command: .rtp(85)), TimedCommand(time: 0, command: .register(0x20, 69)),
        ])
        // A transient I = 1, S = 1 lands: sharpness (1 × 0 + 1 × 1) / 2 = 0.5 → 175 Hz
        // (58). Its lengths are its own: S = 1 → 208.11 Hz, period 4805 µs, overdrive
        // two periods (9610 µs), brake one.
        let t = DriveCompiler.Transient(time: 1000, intensity: 1, sharpness: 1)
        #expect(c.step(time: 1000, intensity: 1, sharpness: 0, transients: [t]) == [
            TimedCommand(time: 1000, command: .rtp(127)), TimedCommand(time: 1000, command: .register(0x20, 58)),
        ])
        // Brake 0.66551 − 0.33449 → 42 at the same frequency; then 85 at 69 again.
        #expect(c.step(time: 11000, intensity: 1, sharpness: 0) == [TimedCommand(time: 10610, command: .rtp(42))])
        #expect(c.step(time: 16000, intensity: 1, sharpness: 0) == [
            TimedCommand(time: 15415, command: .rtp(85)), TimedCommand(time: 15415, command: .register(0x20, 69)),
        ])
    }

    @Test("transients at one microsecond play as one burst: intensities add, clipped at 1, sharpness weighted")
    func simultaneousTransientsMix() {
        var c = DriveCompiler(target: targets.lra)
        // 0.5 + 0.5 = 1 → 127; sharpness (0.5 × 0 + 0.5 × 1) / 1 = 0.5 → 58, overdrive
        // 2.5 periods of 175 Hz = 14286 µs, brake 5714 µs. (One of them alone would be 32.)
        let a = DriveCompiler.Transient(time: 0, intensity: 0.5, sharpness: 0)
        let b = DriveCompiler.Transient(time: 0, intensity: 0.5, sharpness: 1)
        #expect(c.step(time: 0, intensity: 0, sharpness: 0, transients: [b, a]) == [
            TimedCommand(time: 0, command: .rtp(127)), TimedCommand(time: 0, command: .register(0x20, 58)),
        ])
        #expect(c.step(time: 15000, intensity: 0, sharpness: 0) == [TimedCommand(time: 14286, command: .rtp(-127))])
        #expect(c.step(time: 21000, intensity: 0, sharpness: 0) == [TimedCommand(time: 20000, command: .rtp(0))])
    }

    @Test("on an ERM a burst adds to the emphasis of the step it lands on, then brakes back to the level")
    func onAnERMABurstAddsToTheEmphasis() {
        var c = DriveCompiler(target: targets.erm)
        // A continuous event (I = 1, S = 0.5) and a transient (I = 1, S = 0.5) start
        // together: the rise's emphasis (+1 for 0.5 × 0.81115 × 35 ms = 14195 µs) plus
        // the burst is clipped at 127. The burst overdrives for 35 × 0.75 = 26.25 ms;
        // by then the emphasis is over, so it added min(1, 1 − 0.81115) = 0.18885:
        // brake 0.62230 → 79.03 → 79 for 13125 µs, then 103.
        let t = DriveCompiler.Transient(time: 0, intensity: 1, sharpness: 0.5)
        #expect(c.step(time: 0, intensity: 1, sharpness: 0.5, transients: [t]) == [TimedCommand(time: 0, command: .rtp(127))])
        #expect(c.step(time: 27000, intensity: 1, sharpness: 0.5) == [TimedCommand(time: 26250, command: .rtp(79))])
        #expect(c.step(time: 40000, intensity: 1, sharpness: 0.5) == [TimedCommand(time: 39375, command: .rtp(103))])
    }

    @Test("same-stamp changes collapse: a burst ending at a step's own time sends only the step's result")
    func sameStampChangesCollapse() {
        var c = DriveCompiler(target: targets.lraPlain)
        _ = c.step(time: 0, intensity: 0, sharpness: 0)
        let t = DriveCompiler.Transient(time: 0, intensity: 1, sharpness: 1)  // ends at 17143 µs
        _ = c.step(time: 1000, intensity: 0, sharpness: 0, transients: [t])
        _ = c.step(time: 12000, intensity: 0, sharpness: 0)  // brake −127 from 11429
        // At 17143 the burst ends (0) and the continuous input starts (0.5 → 21) at the
        // same microsecond: one RTP, 21.
        #expect(c.step(time: 17143, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 17143, command: .rtp(21))])
    }
}
