import Foundation
import Haptics
import Testing
@testable import HapticCompilation

/// What plays is what renders: a compiled program's drive, at every sample of the
/// rendered timeline, against what `DriveCompiler`'s rules make of that sample
/// (recomputed here from the formulas, not by the compiler's own functions). The
/// rendering rule followed (README, "Rendering rules"): "Overlapping continuous
/// events add intensities, clipped at 1; sharpness is the intensity-weighted mean of
/// the events playing."
///
/// Compared, with c = rated × I² the continuous level of the sample:
/// - outside every burst (and, where steps get emphasis, outside τ after a step of
///   at least the emphasis threshold): RTP = round(127 c), within 0 counts: program
///   and timeline share the sample grid, so nothing but the rounding the rule
///   itself states stands between them;
/// - in a burst's overdrive: RTP = round(127 min(1, c + I²)) within 1 count (the
///   order of the floating-point sum), so never below the continuous level;
/// - in its brake: RTP = round(127 (c − a)), a = min(I², 1 − c at the overdrive's
///   end), within 1 count: never below the continuous level less the brake share;
/// - in closed loop (a calibrated LRA) the same, with rule 2's ramps for emphasis,
///   bursts without a brake phase and nothing below 0;
/// - on a DRV2605L with an LRA in open loop, wherever something plays, OL_LRA_PERIOD = the code
///   of f0 × 2^((S − ½)/2) for the sample's sharpness S, or inside a burst for
///   (I S + I_t S_t) / (I + I_t), within 0 codes.
@Suite struct RenderedDriveTests {
    enum Chip: String, CaseIterable, Sendable {
        case lraOnDRV2605L, lraOnDRV2605, erm, lraClosedLoop
        func target() throws -> DriveTarget {
            switch self {
            case .lraOnDRV2605L: try Targets().lra
            case .lraOnDRV2605: try Targets().lraPlain
            case .erm: try Targets().erm
            case .lraClosedLoop: try Targets().lraClosed
            }
        }
    }

    enum Case: String, CaseIterable, Sendable {
        /// Examples/compilation/transient-on-continuous.ahap.
        case transientOnContinuous
        /// Transients on an attack ramp, on two overlapping events, under parameter
        /// curves, one cutting another short, one outlasting the pattern.
        case rampsCurvesAndOverlaps
        /// Examples/Beethoven5.ahap: transients and continuous events apart.
        case beethoven5

        func pattern() throws -> HapticPattern {
            switch self {
            case .transientOnContinuous: try example("compilation/transient-on-continuous.ahap")
            case .beethoven5: try example("Beethoven5.ahap")
            case .rampsCurvesAndOverlaps:
                HapticPattern(
                    events: [
                        .continuous(at: 0, duration: 0.4, intensity: 1, sharpness: 0.3, attack: 0.6, release: 0.5),
                        .continuous(at: 0.15, duration: 0.1, intensity: 0.5, sharpness: 0.9),
                        .transient(at: 0.02, intensity: 0.8, sharpness: 0.2),
                        .transient(at: 0.1, intensity: 1, sharpness: 1),
                        .transient(at: 0.104, intensity: 0.4, sharpness: 0),
                        .transient(at: 0.2, intensity: 0.7, sharpness: 0.6),
                        .transient(at: 0.395, intensity: 1, sharpness: 0.5),
                    ],
                    curves: [
                        ParameterCurve(id: .hapticIntensityControl, time: 0.25, controlPoints: [.init(time: 0, value: 1), .init(time: 0.15, value: 0.4)]),
                        ParameterCurve(id: .hapticSharpnessControl, time: 0, controlPoints: [.init(time: 0, value: 0), .init(time: 0.4, value: 0.3)]),
                    ])
            }
        }

        func example(_ path: String) throws -> HapticPattern {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Examples/\(path)")
            return try AHAPReader.read(try String(contentsOf: url, encoding: .utf8)).pattern
        }
    }

    @Test("the compiled drive is the rendered timeline's, with each burst added and braked back to it", arguments: Case.allCases, Chip.allCases)
    func compiledDriveFollowsTheRendering(_ c: Case, _ chip: Chip) throws {
        let target = try chip.target()
        let timeline = try Renderer.render(try c.pattern())
        let program = DeviceProgram.compile(timeline, for: target)
        let report = RenderedDriveCheck(target: target, timeline: timeline).compare(program.commands)
        #expect(report.outside.compared > 100)
        #expect(report.outside.worst == 0, "continuous drive off the rendering by \(report.outside.worst) counts at \(report.outside.at) µs")
        #expect(report.overdrive.worst <= 1, "overdrive off by \(report.overdrive.worst) at \(report.overdrive.at) µs")
        #expect(report.brake.worst <= 1, "brake off by \(report.brake.worst) at \(report.brake.at) µs")
        #expect(report.belowContinuousLessShare == 0)
        #expect(report.period.worst == 0, "drive period off by \(report.period.worst) codes at \(report.period.at) µs")
        if c != .beethoven5 { #expect(report.overdrive.compared > 0 && (report.brake.compared > 0) == (target.loop == .open)) }
        if target.loop == .closed { #expect(!program.commands.contains { if case .rtp(let a) = $0.command { a < 0 } else { false } }) }
        if chip == .lraOnDRV2605L { #expect(report.period.compared > 100) }
    }
}

/// The comparison: the rules restated from `DriveCompiler`'s doc comment.
struct RenderedDriveCheck {
    let target: DriveTarget
    let timeline: Timeline

    struct Tally {
        var compared = 0
        var worst = 0
        var at: Int64 = 0
        mutating func add(_ deviation: Int, at t: Int64) {
            compared += 1
            if deviation > worst { (worst, at) = (deviation, t) }
        }
    }

    struct Report {
        var outside = Tally(), overdrive = Tally(), brake = Tally(), period = Tally()
        /// Brake samples below the continuous level less the brake share (by more than a count).
        var belowContinuousLessShare = 0
    }

    struct Burst {
        var start: Int64, overdriveEnd: Int64, end: Int64
        var intensity: Double, sharpness: Double
    }

    func level(intensity i: Double) -> Double { target.ratedLevel * i * i }
    func code(_ level: Double) -> Int { Int((127 * min(1, max(target.minimumLevel, level))).rounded()) }
    func sampleTime(_ k: Int) -> Int64 { Int64((timeline.time(ofSample: k) * 1e6).rounded()) }

    func frequency(sharpness s: Double) -> Double? {
        guard let f0 = target.resonantFrequencyHz else { return nil }
        return target.shaping == .openLoopFrequency ? f0 * pow(2, (s - 0.5) / 2) : f0
    }

    /// Every burst's window, each cut short by the next.
    var bursts: [Burst] {
        var out: [Burst] = []
        for t in timeline.transients where t.intensity > 0 {
            let start = Int64((t.time * 1e6).rounded())
            let od: Double, br: Double
            if let f = frequency(sharpness: t.sharpness) {
                (od, br) = ((3 - t.sharpness) * 1e6 / f, target.loop == .closed ? 0 : 1e6 / f)
            } else {
                od = target.timeConstantMicroseconds * (1 - t.sharpness / 2)
                br = od / 2
            }
            if let last = out.last, last.end > start { out[out.count - 1].end = start }
            let overdriveEnd = start + Int64(od.rounded())
            out.append(Burst(start: start, overdriveEnd: overdriveEnd, end: overdriveEnd + Int64(br.rounded()), intensity: t.intensity, sharpness: t.sharpness))
        }
        return out
    }

    /// The continuous level in force at `t`: that of the last sample at or before it
    /// (the brake share is taken with the level of the overdrive's last µs).
    func level(at t: Int64) -> Double {
        let k = Int((Double(t) / 1e6 * timeline.sampleRate).rounded(.down))
        return k < timeline.sampleCount ? level(intensity: timeline.intensity[k]) : 0
    }

    func compare(_ commands: [TimedCommand]) -> Report {
        var report = Report()
        let bursts = bursts
        // Where steps are shaped, the drive may sit at ±1 (emphasis) or between the
        // levels (closed-loop ramp) for up to τ after a step.
        var emphasisUntil = Int64.min
        var rtp = 0, period: UInt8?, next = 0, b = 0
        // The latest stamp read and its writes: rule 4's pacing holds the next stamp
        // back by writes × spacing.
        var stamp = Int64.min, writes: Int64 = 0
        let spacing = BoardIntake.writeSpacingMicroseconds
        for k in 0..<timeline.sampleCount {
            let t = sampleTime(k)
            while next < commands.count, commands[next].time <= t {
                if commands[next].time != stamp { (stamp, writes) = (commands[next].time, 0) }
                writes += 1
                switch commands[next].command {
                case .rtp(let a): rtp = Int(a)
                case .register(_, let v): period = v
                case .stop: rtp = 0
                }
                next += 1
            }
            // A change due by t that the pacing held to the slot just after it: the
            // drive at t is read either side of that (the slot carries the value the
            // drive has by then, last winning).
            var paced: Int?
            if commands.count > next, stamp != .min, commands[next].time == stamp + writes * spacing, case .rtp(let a) = commands[next].command {
                paced = Int(a)
            }
            func off(_ expected: Int) -> Int { min(abs(rtp - expected), paced.map { abs($0 - expected) } ?? .max) }
            let i = timeline.intensity[k], s = timeline.sharpness[k], c = level(intensity: i)
            if target.shaping != .openLoopFrequency, k > 0, abs(c - level(intensity: timeline.intensity[k - 1])) >= 0.1 {
                emphasisUntil = t + Int64(target.timeConstantMicroseconds.rounded())
            }
            while b < bursts.count, bursts[b].end <= t { b += 1 }
            let burst = b < bursts.count && bursts[b].start <= t ? bursts[b] : nil
            var mixedSharpness: Double? = i > 0 ? s : nil
            if let burst {
                mixedSharpness = (i * s + burst.intensity * burst.sharpness) / (i + burst.intensity)
            }
            if let f = mixedSharpness.flatMap(frequency(sharpness:)), target.shaping == .openLoopFrequency {
                let expected = Int((1 / (f * 98.46e-6)).rounded())
                report.period.add(abs(Int(period ?? 0) - expected), at: t)
            }
            guard t > emphasisUntil else { continue }
            guard let burst else {
                report.outside.add(off(code(c)), at: t)
                continue
            }
            let added = burst.intensity * burst.intensity
            if t < burst.overdriveEnd {
                report.overdrive.add(off(code(min(1, c + added))), at: t)
            } else {
                let share = max(0, min(added, 1 - level(at: burst.overdriveEnd - 1)))
                report.brake.add(off(code(c - share)), at: t)
                if max(rtp, paced ?? rtp) < code(c) - code(share) - 1 { report.belowContinuousLessShare += 1 }
            }
        }
        return report
    }
}
