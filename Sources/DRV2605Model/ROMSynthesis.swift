import DRV2605

/// One piece of a synthesised effect. TI publishes effect names, not waveforms, so
/// these shapes are OURS, read from the names (see `ROMEffect.Shape`): a click is a
/// short full drive then a brake, a buzz sustained drive then a brake, a ramp a
/// linear change of level, a hum sustained drive without kick or brake.
public struct Segment: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Drive towards `level`; in closed loop the chip may overdrive and brake to get there.
        case drive(automaticOverdriveAndBrake: Bool)
        /// Stop the actuator: closed loop brakes to zero; open loop drives reverse at `level`.
        case brake
        /// Output idle (no drive, no brake): sequencer waits and gaps.
        case idle
    }
    public var kind: Kind
    public var level: Double
    public var microseconds: UInt64

    public init(kind: Kind, level: Double, microseconds: UInt64) {
        self.kind = kind
        self.level = level
        self.microseconds = microseconds
    }
}

/// Timing knobs the sequencer applies to every library effect.
public struct SynthesisTiming: Sendable, Equatable {
    /// Library step: 5 ms, or 1 ms with CONTROL5.PLAYBACK_INTERVAL (L). Our durations
    /// are written for 5 ms steps and scale with it.
    public var playbackScale: Double = 1
    /// ODT, SPT, BRT offsets in µs (added to the first drive, every drive, every brake).
    public var overdriveOffset: Int64 = 0
    public var sustainOffset: Int64 = 0
    public var brakeOffset: Int64 = 0
    public init() {}
}

public enum ROMSynthesis {
    static let brakeMilliseconds = 15.0
    static let rampStepMilliseconds = 5.0
    static let sharpRampSteps = 4

    public static func segments(for effect: ROMEffect, timing: SynthesisTiming = SynthesisTiming()) -> [Segment] {
        var out: [Segment] = []
        let s = effect.strength
        func us(_ ms: Double) -> Int64 { Int64((ms * 1000 * timing.playbackScale).rounded()) }
        func add(_ kind: Segment.Kind, _ level: Double, _ micro: Int64) {
            guard micro > 0 else { return }
            out.append(Segment(kind: kind, level: level, microseconds: UInt64(micro)))
        }
        var firstDrive = true
        func drive(_ level: Double, _ ms: Double, auto: Bool = true) {
            var t = us(ms) + timing.sustainOffset
            if firstDrive { t += timing.overdriveOffset; firstDrive = false }
            add(.drive(automaticOverdriveAndBrake: auto), level, t)
        }
        func brake(_ level: Double, _ ms: Double = brakeMilliseconds) { add(.brake, level, us(ms) + timing.brakeOffset) }
        func idle(_ ms: Double) { add(.idle, 0, us(ms)) }

        switch effect.shape {
        case .click(let count, let pulse, let gap):
            for i in 0..<count {
                drive(s, pulse)
                brake(s, min(brakeMilliseconds, pulse))
                if i < count - 1 { idle(max(0, gap - min(brakeMilliseconds, pulse))) }
            }
        case .buzz(let ms):
            drive(s, ms)
            brake(s, 2 * brakeMilliseconds)
        case .pulsing(let count, let on, let off):
            for i in 0..<count {
                drive(s, on)
                brake(s, min(brakeMilliseconds, off))
                if i < count - 1 { idle(max(0, off - min(brakeMilliseconds, off))) }
            }
        case .ramp(let from, let to, let ms, let sharp):
            let steps = sharp ? sharpRampSteps : max(1, Int((ms / rampStepMilliseconds).rounded()))
            for i in 0..<steps {
                let f = steps == 1 ? 1 : Double(i) / Double(steps - 1)
                drive(from + (to - from) * f, ms / Double(steps))
            }
            brake(max(from, to), brakeMilliseconds)
        case .hum(let ms):
            drive(s, ms, auto: false)
        }
        return out
    }
}
