import Foundation
import DRV2605

/// Turns mixed intensity / sharpness samples and transients into timestamped RTP
/// and register commands for one `DriveTarget`. Streaming: the scheduler feeds one
/// step at a time (so players can start, stop and change while it plays); a whole
/// timeline goes through the same code in `DeviceProgram.compile`.
///
/// The rules (levels are fractions of full scale, RTP = round(127 × level)), each
/// plotted on the simulated actuator in `Examples/compilation/README.md`:
///
/// 1. **Intensity → amplitude.** A continuous intensity I plays at level
///    `ratedLevel × I²`: intensity 1 is the actuator's rated voltage, and the square
///    is the perceptual mapping. Felt vibration magnitude grows roughly as drive
///    amplitude to the power 0.5-0.6 (Stevens; Verrillo), so equal intensity steps
///    need growing amplitude steps; I² is also the inverse of the pattern layer's
///    `.haptic` import (intensity = √amplitude, Lofelt's rule), so a designer's
///    amplitude envelope comes back out linearly.
/// 2. **Sharpness → drive shaping.**
///    - DRV2605L with an LRA (`openLoopFrequency`): the open-loop drive frequency is
///      `f0 × 2^((S − ½) / 2)` (half an octave around resonance, f0 at S = ½; a
///      wider span loses too much amplitude off resonance at the Q of these parts),
///      written as OL_LRA_PERIOD = round(1 / (f × 98.46 µs)) only when the code
///      changes, stamped with the amplitude it goes with but queued after it: the
///      board runs same-stamp commands one bus transaction after another, and the
///      amplitude is the event (timed to a few µs), so the period follows one I2C
///      write later (~70 µs at 400 kHz, under 2 % of an LRA's period) rather than
///      holding the amplitude back by that much.
///    - Otherwise (`overdriveAndBrakeEmphasis`): a level step of at least
///      `emphasisThreshold` gets emphasis: a rise of Δ first drives at full scale
///      (+127) for `S × Δ × τ` with the sharpness S of what starts, a fall of Δ
///      brakes at −127 for `S × Δ × τ` with the sharpness of what ends (the previous
///      step's: at a pattern's end nothing is playing any more), then the new level;
///      τ is the actuator's mechanical time constant. Sharp steps start and stop
///      crisply; dull ones (S = 0) ramp and ring down on the actuator's own inertia.
/// 3. **Transients → bursts.** A transient of intensity I and sharpness S drives at
///    level `I²` (of full scale: transients overdrive) for the overdrive time, then
///    at `−I²` for the brake time, then the continuous level resumes. LRA: overdrive
///    `(3 − S)` periods, brake one period, of the drive frequency (so sharper is
///    shorter); ERM: overdrive `τ × (1 − S/2)`, brake half that. A later transient
///    cuts an earlier burst short. On an LRA the open-loop brake (the drive's sign
///    inverted) is not locked to the mass's phase, so it only takes part of the
///    motion out: on the C10-100 model one period beat 1.5 (about the same) and 2
///    (which re-excites it); the rest rings down at the actuator's Q. A phase-locked
///    brake needs the chip's closed loop, which needs calibration the bridge protocol
///    cannot read back today.
/// 4. **Economy.** A command is emitted only when the RTP code or period changes;
///    stamps never go backwards; of two RTP codes at one microsecond the later wins.
public struct DriveCompiler: Sendable {
    public let target: DriveTarget
    /// Rises and falls smaller than this are followed, not emphasised (a 1 ms ramp
    /// would otherwise be all overdrive pulses).
    public var emphasisThreshold = 0.1

    /// One transient to play, at an exact time (µs), with mixed parameters.
    public struct Transient: Sendable, Equatable {
        public var time: Int64
        public var intensity: Double
        public var sharpness: Double
        public init(time: Int64, intensity: Double, sharpness: Double) {
            self.time = time
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    private var lastCode: Int8?
    private var lastPeriod: UInt8?
    private var continuousLevel = 0.0
    private var lastSharpness = 0.0
    /// A burst or emphasis pulse in progress: its remaining changes (a nil level
    /// returns to the continuous level).
    private var pulse: [(time: Int64, level: Double?)] = []
    private var lastTime = Int64.min

    public init(target: DriveTarget) {
        self.target = target
    }

    /// The RTP level of a continuous intensity (rule 1).
    public func continuousLevel(intensity: Double) -> Double {
        let i = Self.unit(intensity)
        return target.ratedLevel * i * i
    }

    /// The open-loop drive frequency for a sharpness (rule 2), LRA only.
    public func driveFrequency(sharpness: Double) -> Double? {
        guard let f0 = target.resonantFrequencyHz else { return nil }
        guard target.shaping == .openLoopFrequency else { return f0 }
        let s = Self.unit(sharpness)
        return f0 * pow(2, (s - 0.5) / 2)
    }

    /// Overdrive and brake lengths of a transient, µs (rule 3).
    public func burstDurations(sharpness: Double) -> (overdrive: Int64, brake: Int64) {
        let s = Self.unit(sharpness)
        if let f = driveFrequency(sharpness: s) {
            let period = 1e6 / f
            return (Int64(((3 - s) * period).rounded()), Int64(period.rounded()))
        }
        let od = target.timeConstantMicroseconds * (1 - s / 2)
        return (Int64(od.rounded()), Int64((od / 2).rounded()))
    }

    /// A parameter in 0...1; anything not finite counts as 0.
    static func unit(_ x: Double) -> Double { x.isFinite ? min(max(x, 0), 1) : 0 }

    /// RTP code of a level; a non-finite level (a caller's NaN) is silence, never a trap.
    public static func code(_ level: Double) -> Int8 {
        guard level.isFinite else { return 0 }
        return Int8(max(-127, min(127, (127 * level).rounded())))
    }

    /// One sample at `time` (µs, increasing from call to call) of the mixed
    /// continuous intensity and sharpness, with the transients due in
    /// (previous time, time]. Returns the commands, stamped at or before `time`.
    public mutating func step(time: Int64, intensity: Double, sharpness: Double, transients: [Transient] = []) -> [TimedCommand] {
        let intensity = Self.unit(intensity), sharpness = Self.unit(sharpness)
        var out: [TimedCommand] = []
        let sortedTransients = transients.sorted { $0.time < $1.time }
        var nextTransient = 0
        // Pulse changes and transients due by `time`, in time order.
        while true {
            let pulseTime = pulse.first?.time
            let transientTime = nextTransient < sortedTransients.count ? min(sortedTransients[nextTransient].time, time) : nil
            if let tt = transientTime, pulseTime.map({ tt <= $0 }) ?? true {
                startBurst(sortedTransients[nextTransient], at: tt, into: &out)
                nextTransient += 1
            } else if let pt = pulseTime, pt <= time {
                let change = pulse.removeFirst()
                emitRTP(change.level ?? continuousLevel, at: pt, into: &out)
            } else {
                break
            }
        }
        let level = continuousLevel(intensity: intensity)
        let previous = continuousLevel
        let previousSharpness = lastSharpness
        continuousLevel = level
        lastSharpness = sharpness
        if pulse.isEmpty {
            let delta = level - previous
            let s = min(max(delta > 0 ? sharpness : previousSharpness, 0), 1)
            if target.shaping == .overdriveAndBrakeEmphasis, abs(delta) >= emphasisThreshold, s > 0 {
                let length = Int64((s * abs(delta) * target.timeConstantMicroseconds).rounded())
                if length > 0 {
                    emitRTP(delta > 0 ? 1 : -1, at: time, into: &out)
                    pulse = [(time + length, nil)]
                    return out
                }
            }
            emitRTP(level, at: time, into: &out)
        }
        if intensity > 0 { setPeriod(sharpness: sharpness, at: time, into: &out) }
        return out
    }

    /// Ends the program at `time`: any pulse is cut, the drive goes to 0.
    public mutating func finish(at time: Int64) -> [TimedCommand] {
        var out: [TimedCommand] = []
        pulse.removeAll()
        continuousLevel = 0
        emitRTP(0, at: max(time, lastTime), into: &out)
        return out
    }

    /// No pulse running and the drive at rest: nothing more to send until new input.
    public var isSettled: Bool { pulse.isEmpty && (lastCode ?? 0) == 0 }

    /// Forgets what the chip was last told (after a stop or reset the next command
    /// must be sent whatever it is).
    public mutating func reset() {
        lastCode = nil
        lastPeriod = nil
        continuousLevel = 0
        lastSharpness = 0
        pulse.removeAll()
    }

    private mutating func startBurst(_ t: Transient, at time: Int64, into out: inout [TimedCommand]) {
        let i = Self.unit(t.intensity)
        guard i > 0 else { return }
        let (od, br) = burstDurations(sharpness: t.sharpness)
        emitRTP(i * i, at: time, into: &out)
        setPeriod(sharpness: t.sharpness, at: time, into: &out)
        pulse = [(time + od, -i * i), (time + od + br, nil)]
    }

    /// Rule 2 on a DRV2605L with an LRA: the drive frequency of this sharpness, queued
    /// after the amplitude it goes with.
    private mutating func setPeriod(sharpness: Double, at time: Int64, into out: inout [TimedCommand]) {
        guard target.shaping == .openLoopFrequency, let f = driveFrequency(sharpness: sharpness) else { return }
        let code = Self.periodCode(frequencyHz: f)
        guard code != lastPeriod else { return }
        emit(.register(Self.openLoopPeriodRegister, code), at: time, into: &out)
        lastPeriod = code
    }

    private mutating func emitRTP(_ level: Double, at time: Int64, into out: inout [TimedCommand]) {
        let code = Self.code(level)
        guard code != lastCode else { return }
        lastCode = code
        emit(.rtp(code), at: time, into: &out)
    }

    private mutating func emit(_ command: DeviceCommand, at time: Int64, into out: inout [TimedCommand]) {
        let t = max(time, lastTime)
        // Of two RTP codes at one microsecond only the later matters; it takes the
        // earlier one's place, ahead of a period write of that microsecond.
        if case .rtp = command, let i = out.lastIndex(where: { $0.time == t && $0.command.isRTP }),
            out[i...].allSatisfy({ $0.time == t })
        {
            out[i].command = command
        } else {
            out.append(TimedCommand(time: t, command: command))
        }
        lastTime = t
    }

    static let openLoopPeriodRegister = RegisterAddress.openLoopLRAPeriod.rawValue

    static func periodCode(frequencyHz: Double) -> UInt8 {
        DRV2605Formulas.openLoopPeriodCode(frequencyHz: frequencyHz)
    }
}
