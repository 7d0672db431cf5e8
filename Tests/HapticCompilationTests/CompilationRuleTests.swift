import Haptics
import Testing
@testable import HapticCompilation

/// Each rule of `DriveCompiler`, with the numbers worked by hand (see DriveTargetTests
/// for the targets: LRA rated level 0.66551, ERM 0.81115).
@Suite struct CompilationRuleTests {
    let targets: Targets
    init() throws { targets = try Targets() }

    @Test func intensityMapsToTheRatedLevelTimesItsSquare() {
        let c = DriveCompiler(target: targets.lra)
        // 127 × 0.66551 × 1 = 84.52 → 85; × 0.25 = 21.13 → 21; × 0.01 = 0.845 → 1.
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 1)) == 85)
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 0.5)) == 21)
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 0.1)) == 1)
        #expect(DriveCompiler.code(c.continuousLevel(intensity: 0)) == 0)
        #expect(DriveCompiler.code(.nan) == 0 && DriveCompiler.code(.infinity) == 0 && DriveCompiler.code(-3) == -127)
        var nonsense = DriveCompiler(target: targets.lra)
        #expect(nonsense.step(time: 0, intensity: .nan, sharpness: .nan, transients: [.init(time: 0, intensity: .infinity, sharpness: .nan)]).count <= 3)
        // ERM: 127 × 0.81115 = 103.02 → 103.
        #expect(DriveCompiler.code(DriveCompiler(target: targets.erm).continuousLevel(intensity: 1)) == 103)
    }

    @Test func sharpnessSetsTheOpenLoopPeriodHalfAnOctaveAroundResonance() {
        let c = DriveCompiler(target: targets.lra)
        // S = 0: 175 × 2^−¼ = 147.16 Hz → 1 / (147.16 × 98.46 µs) = 69.02 → 69.
        // S = ½: 175 Hz → 58.  S = 1: 175 × 2^¼ = 208.11 Hz → 48.80 → 49.
        #expect(abs(c.driveFrequency(sharpness: 0)! - 147.16) < 0.01)
        #expect(abs(c.driveFrequency(sharpness: 1)! - 208.11) < 0.01)
        var compiler = DriveCompiler(target: targets.lra)
        #expect(compiler.step(time: 0, intensity: 1, sharpness: 0) == [
            TimedCommand(time: 0, command: .rtp(85)), TimedCommand(time: 0, command: .register(0x20, 69)),
        ])
        // Same codes: nothing to send.
        #expect(compiler.step(time: 1000, intensity: 1, sharpness: 0.001) == [])
        #expect(compiler.step(time: 2000, intensity: 1, sharpness: 1) == [TimedCommand(time: 2000, command: .register(0x20, 49))])
    }

    @Test func theAmplitudeGoesAheadOfThePeriodWriteSharingItsStamp() {
        // The board runs same-stamp commands one I2C write after another: the
        // amplitude (the event) must not wait for the period write.
        var c = DriveCompiler(target: targets.lra)
        // A transient and a continuous event starting together: the burst on top of
        // the continuous level (85 + 127, clipped at 127), then the period of their
        // intensity-weighted sharpness (both 0.5 here: 175 Hz, 58).
        let t = DriveCompiler.Transient(time: 1000, intensity: 1, sharpness: 0.5)
        let out = c.step(time: 1000, intensity: 1, sharpness: 0.5, transients: [t])
        #expect(out == [TimedCommand(time: 1000, command: .rtp(127)), TimedCommand(time: 1000, command: .register(0x20, 58))])
        for (a, b) in zip(out, out.dropFirst()) where a.time == b.time {
            #expect(!(b.command.isRTP && !a.command.isRTP), "an RTP queued behind a register write of its stamp")
        }
    }

    @Test func stepsGetOverdriveAndBrakeEmphasisScaledBySharpnessWhereTheFrequencyIsFixed() {
        var c = DriveCompiler(target: targets.erm)
        // Rise 0 → 0.81115 at S = 1: +127 for 1 × 0.81115 × 35 ms = 28390 µs, then 103.
        #expect(c.step(time: 0, intensity: 1, sharpness: 1) == [TimedCommand(time: 0, command: .rtp(127))])
        #expect(c.step(time: 28000, intensity: 1, sharpness: 1) == [])
        #expect(c.step(time: 29000, intensity: 1, sharpness: 1) == [TimedCommand(time: 28390, command: .rtp(103))])
        // The sound turns duller (S = 0.5, same level: nothing to send), then ends: the
        // fall brakes with the sharpness of what ends, not of the silence after it:
        // −127 for 0.5 × 0.81115 × 35 ms = 14195 µs, then 0.
        #expect(c.step(time: 40000, intensity: 1, sharpness: 0.5) == [])
        #expect(c.step(time: 50000, intensity: 0, sharpness: 0) == [TimedCommand(time: 50000, command: .rtp(-127))])
        #expect(c.step(time: 65000, intensity: 0, sharpness: 0) == [TimedCommand(time: 64195, command: .rtp(0))])
    }

    @Test func dullAndSmallStepsAreFollowedWithoutEmphasis() {
        var c = DriveCompiler(target: targets.erm)
        #expect(c.step(time: 0, intensity: 1, sharpness: 0) == [TimedCommand(time: 0, command: .rtp(103))])
        // 1 → 0.95: level 0.73206, Δ = 0.079 < 0.1 → 92.97 → 93 directly.
        #expect(c.step(time: 1000, intensity: 0.95, sharpness: 1) == [TimedCommand(time: 1000, command: .rtp(93))])
    }

    @Test func transientsAreOverdriveThenBrakeBurstsSizedByTheDriveFrequency() {
        var c = DriveCompiler(target: targets.lra)
        // LRA on the L part, S = ½: f = 175 Hz, period 5714.3 µs: overdrive 2.5 periods
        // = 14286 µs at +127 (I² = 1), brake one period 5714 µs at −127, then 0.
        let t = DriveCompiler.Transient(time: 500, intensity: 1, sharpness: 0.5)
        #expect(c.step(time: 1000, intensity: 0, sharpness: 0, transients: [t]) == [
            TimedCommand(time: 500, command: .rtp(127)), TimedCommand(time: 500, command: .register(0x20, 58)),
        ])
        #expect(c.step(time: 15000, intensity: 0, sharpness: 0) == [TimedCommand(time: 14786, command: .rtp(-127))])
        #expect(c.step(time: 21000, intensity: 0, sharpness: 0) == [TimedCommand(time: 20500, command: .rtp(0))])
    }

    @Test func transientIntensityIsSquaredLikeTheContinuousMapping() {
        var c = DriveCompiler(target: targets.erm)
        // I = 0.5 → ±0.25 of full scale = ±31.75 → ±32. ERM S = 1: overdrive 35 × ½ = 17.5 ms, brake 8.75 ms.
        let t = DriveCompiler.Transient(time: 0, intensity: 0.5, sharpness: 1)
        #expect(c.burstDurations(sharpness: 1) == (17500, 8750))
        #expect(c.burstDurations(sharpness: 0) == (35000, 17500))
        #expect(c.step(time: 0, intensity: 0, sharpness: 0, transients: [t]) == [TimedCommand(time: 0, command: .rtp(32))])
        #expect(c.step(time: 30000, intensity: 0, sharpness: 0) == [
            TimedCommand(time: 17500, command: .rtp(-32)), TimedCommand(time: 26250, command: .rtp(0)),
        ])
    }

    @Test func aLaterTransientCutsAnEarlierBurstShort() {
        var c = DriveCompiler(target: targets.lraPlain)
        // Plain DRV2605: f stays 175 Hz; S = 1 → overdrive 2 periods = 11429 µs, brake 5714.
        _ = c.step(time: 0, intensity: 0.5, sharpness: 0)  // 21
        let first = DriveCompiler.Transient(time: 1000, intensity: 1, sharpness: 1)
        let second = DriveCompiler.Transient(time: 5000, intensity: 1, sharpness: 1)
        #expect(c.step(time: 1000, intensity: 0.5, sharpness: 0, transients: [first]) == [TimedCommand(time: 1000, command: .rtp(127))])
        // The second transient restarts the burst (same code: nothing new to send).
        #expect(c.step(time: 5000, intensity: 0.5, sharpness: 0, transients: [second]) == [])
        // Brake from 5000 + 11429: c − a with c = 0.66551 × 0.25 = 0.16638 and
        // a = min(1, 1 − 0.16638) = 0.83362: −0.66724 → −84.74 → −85; back to 21 at 22143.
        #expect(c.step(time: 17000, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 16429, command: .rtp(-85))])
        #expect(c.step(time: 23000, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 22143, command: .rtp(21))])
    }

    @Test func aWholeTimelineCompilesToOrderedCommandsEndingAtZero() throws {
        let pattern = HapticPattern(events: [
            .continuous(at: 0, duration: 0.050, intensity: 1, sharpness: 0.5),
            .transient(at: 0.080, intensity: 1, sharpness: 1),
        ])
        let timeline = try Renderer.render(pattern)
        let program = DeviceProgram.compile(timeline, for: targets.lra)
        #expect(program.setup.count == targets.lra.setupWrites.count)
        #expect(zip(program.commands, program.commands.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(Array(program.commands.prefix(2)) == [
            TimedCommand(time: 0, command: .rtp(85)), TimedCommand(time: 0, command: .register(0x20, 58)),
        ])
        #expect(program.commands.contains(TimedCommand(time: 50000, command: .rtp(0))))
        // The transient at 80 ms, S = 1: 208.11 Hz → OL period 49, overdrive 2 periods = 9610 µs, brake 4805.
        #expect(program.commands.contains(TimedCommand(time: 80000, command: .register(0x20, 49))))
        #expect(program.commands.contains(TimedCommand(time: 80000, command: .rtp(127))))
        #expect(program.commands.contains(TimedCommand(time: 89610, command: .rtp(-127))))
        #expect(program.commands.last == TimedCommand(time: 94415, command: .rtp(0)))
        // The program runs on until that brake is over: the step after it.
        #expect(program.duration == 95000)
    }
}

/// Rule 4's pacing (`BoardIntake`): a board gets at most 1000 / spacing writes a
/// millisecond, the onset after a quiet spell on its own microsecond, the last value
/// of a slot winning.
@Suite struct PacingRuleTests {
    let targets: Targets
    init() throws { targets = try Targets() }

    @Test("changes within a slot land in it, the last value winning; the first after a quiet spell is on time")
    func changesWithinASlotMerge() {
        // The C10-100 on a plain DRV2605: one write (RTP) a change; steps below the
        // emphasis threshold are followed as they come.
        var c = DriveCompiler(target: targets.lraPlain)
        let spacing = BoardIntake.writeSpacingMicroseconds
        let code = { (i: Double) in DriveCompiler.code(DriveCompiler(target: targets.lraPlain).continuousLevel(intensity: i)) }
        #expect(c.step(time: 10_000, intensity: 0.5, sharpness: 0) == [TimedCommand(time: 10_000, command: .rtp(code(0.5)))])
        // Two new levels within the slot: each waits for the slot at 10 000 + spacing.
        #expect(c.step(time: 10_000 + spacing / 3, intensity: 0.6, sharpness: 0) == [])
        #expect(c.step(time: 10_000 + spacing * 2 / 3, intensity: 0.7, sharpness: 0) == [])
        // Past the slot: the value the drive had by then (0.7's), stamped at the slot.
        #expect(c.step(time: 10_000 + spacing + 50, intensity: 0.8, sharpness: 0) == [TimedCommand(time: 10_000 + spacing, command: .rtp(code(0.7)))])
        #expect(c.mergedWrites == 1 && c.delayedWrites == 1)
        // A quiet spell, then a change: on its own microsecond.
        _ = c.step(time: 20_000, intensity: 0.8, sharpness: 0)
        #expect(c.step(time: 30_000, intensity: 0.9, sharpness: 0) == [TimedCommand(time: 30_000, command: .rtp(code(0.9)))])
        #expect(!c.isSettled)
    }

    @Test("a pulse shorter than a slot after a quiet spell is lengthened to the slot, never dropped")
    func aShortPulseSurvives() {
        // The ERM: a rise of Δ = 0.81115 × 0.37² = 0.111 at S = 0.05 is a full-scale
        // pulse of 0.05 × 0.111 × 35 000 ≈ 194 µs, shorter than the spacing.
        var c = DriveCompiler(target: targets.erm)
        _ = c.step(time: 9_000, intensity: 0, sharpness: 0)
        let level = DriveCompiler.code(c.continuousLevel(intensity: 0.37))
        #expect(c.step(time: 10_000, intensity: 0.37, sharpness: 0.05) == [TimedCommand(time: 10_000, command: .rtp(127))])
        #expect(c.step(time: 11_000, intensity: 0.37, sharpness: 0.05)
            == [TimedCommand(time: 10_000 + BoardIntake.writeSpacingMicroseconds, command: .rtp(level))])
        #expect(c.mergedWrites == 0 && c.delayedWrites == 1)
    }

    @Test("transients eight a millisecond compile to at most the intake a millisecond, their first on its microsecond")
    func denseTransientsArePaced() throws {
        let levels = [0.4, 0.7, 1.0, 0.55]
        let pattern = HapticPattern(events: (0..<400).map { .transient(at: 0.01 + Double($0) * 0.000125, intensity: levels[$0 % 4], sharpness: 0.5) })
        let program = DeviceProgram.compile(try Renderer.render(pattern), for: targets.lraPlain)
        let times = program.commands.map(\.time)
        let intake = Int(BoardIntake.writesPerMillisecond(spacing: BoardIntake.writeSpacingMicroseconds).rounded(.up))
        var best = 0, start = 0
        for end in times.indices {
            while times[end] - times[start] >= 1000 { start += 1 }
            best = max(best, end - start + 1)
        }
        #expect(best <= intake)
        // (The program opens with an RTP 0 at 0: a fresh compiler does not know the chip.)
        #expect(program.commands.first { $0.time > 0 } == TimedCommand(time: 10_000, command: .rtp(DriveCompiler.code(0.16))))
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= BoardIntake.writeSpacingMicroseconds })
    }

    @Test("a command describes itself as the protocol document writes registers: two upper-case digits after 0x")
    func commandDescriptions() {
        #expect(DeviceCommand.register(0x1A, 0x03).description == "REG 0x1A = 0x03")
        #expect(DeviceCommand.rtp(-5).description == "RTP -5")
        #expect(DeviceCommand.stop.description == "STOP")
    }
}
