import Foundation
import DRV2605
import Haptics

/// Turns mixed intensity / sharpness samples and transients into timestamped RTP
/// and register commands for one `DriveTarget`. Streaming: the scheduler feeds one
/// step at a time (so players can start, stop and change while it plays); a whole
/// timeline goes through the same code in `DeviceProgram.compile`.
///
/// The rules (levels are fractions of full scale, RTP = round(127 × level)), each
/// plotted on the simulated actuator in `Examples/compilation/README.md` (open loop).
/// The target's loop (`DriveTarget.Loop`) decides what full scale is: in open loop
/// the profile's maximum voltage, levels run −1...1 and the host overdrives and
/// brakes; in closed loop (a calibrated LRA) the rated amplitude the chip regulates
/// to, levels run 0...1 (below mid-scale is zero drive) and the chip overdrives (up
/// to OD_CLAMP) and brakes (FB_BRAKE_FACTOR) by itself, phase-locked to the mass.
///
/// 1. **Intensity → amplitude.** A continuous intensity I plays at level
///    `ratedLevel × I²` (`ratedLevel` is 1 in closed loop, where full scale is the
///    rated amplitude): intensity 1 is the actuator's rated voltage, and the square
///    is the perceptual mapping. Felt vibration magnitude grows roughly as drive
///    amplitude to the power 0.5-0.6 (Stevens; Verrillo), so equal intensity steps
///    need growing amplitude steps; I² is also the inverse of the pattern layer's
///    `.haptic` import (intensity = √amplitude, Lofelt's rule), so a designer's
///    amplitude envelope comes back out linearly.
/// 2. **Sharpness → drive shaping.** A level step of at least `emphasisThreshold`
///    takes the sharpness S of what starts when it rises, of what ends when it falls
///    (the previous step's: at a pattern's end nothing is playing any more).
///    - DRV2605L with an LRA in open loop (`openLoopFrequency`): the drive frequency is
///      `f0 × 2^((S − ½) / 2)` (half an octave around resonance, f0 at S = ½; a
///      wider span loses too much amplitude off resonance at the Q of these parts),
///      written as OL_LRA_PERIOD = round(1 / (f × 98.46 µs)) only when the code
///      changes, stamped with the amplitude it goes with but queued after it: the
///      board runs same-stamp commands one bus transaction after another, and the
///      amplitude is the event (timed to a few µs), so the period follows one I2C
///      write later (~70 µs at 400 kHz, under 2 % of an LRA's period) rather than
///      holding the amplitude back by that much.
///    - Open loop otherwise (`overdriveAndBrakeEmphasis`): a step gets emphasis: a
///      rise of Δ first drives at full scale (+127) for `S × Δ × τ`, a fall of Δ
///      brakes at −127 for `S × Δ × τ`, then the new level; τ is the actuator's
///      mechanical time constant. Sharp steps start and stop crisply; dull ones
///      (S = 0) ramp and ring down on the actuator's own inertia.
///    - Closed loop (`rampedSteps`): the chip tracks the resonance, so sharpness
///      cannot move the frequency, and it already overdrives and brakes every step
///      to the clamp (emphasis pulses on top only overshot: 14 % at S = 1 on the
///      C10-100 model, for no faster rise). So a step of Δ is handed to the chip as
///      a linear ramp over `(1 − S) × Δ × τ` (followed at each step of the caller):
///      sharp steps are the chip's own crisp ones, dull ones start and stop as
///      softly as the actuator's inertia would (on the C10-100 model S = 1 reaches
///      90 % and stops in under half the time of S = 0).
/// 3. **Transients → bursts, added to the continuous drive.** A transient of
///    intensity I and sharpness S is a burst on top of the continuous drive c (the
///    level of rules 1-2, their shaping included), the one actuator carrying both, as
///    the pattern layer's `MixingRule` has overlapping vibrations add:
///    - overdrive: the drive is `min(1, c + I²)` (I² of full scale: transients
///      overdrive) for the overdrive time;
///    - brake (open loop): the drive is `c − a` for the brake time, where `a = min(I², 1 − c)`
///      is what the overdrive added as it ended (c of its last microsecond): the
///      brake takes back the burst's own push, not the continuous vibration under
///      it (and `c − a ≥ −1` always);
///    - then c again. c is followed all along (a step of the continuous input
///      during a burst moves the burst with it).
///    With nothing playing (c = 0) that is `I²`, then `−I²`. The actuators are
///    close to linear below full scale, so the sum of the drives makes the sum of
///    the two vibrations: the continuous one goes on under the burst. Only the clip
///    at full scale takes part of a loud burst away.
///    Lengths: LRA overdrive `(3 − S)` periods, brake one period, of the drive
///    frequency of S (so sharper is shorter; closed loop: of the resonance
///    calibration measured); ERM overdrive `τ × (1 − S/2)`, brake half that. On a DRV2605L with an LRA the drive frequency during the burst is
///    that of the intensity-weighted sharpness of the continuous input and the
///    transient (`MixingRule` again), and returns to the continuous one after it.
///    Transients at one microsecond are one burst: their intensities add, clipped
///    at 1, their sharpness intensity-weighted (`MixingRule`). A later transient
///    cuts an earlier burst short. On an LRA the open-loop brake (the drive's sign
///    inverted) is not locked to the mass's phase, so it only takes part of the
///    motion out: on the C10-100 model one period beat 1.5 (about the same) and 2
///    (which re-excites it); the rest rings down at the actuator's Q. In closed loop
///    there is no host brake: when the burst's level drops back to c the chip brakes
///    the excess itself, locked to the mass's phase (on the C10-100 model a transient
///    falls to 10 % of its peak in about half the open-loop time).
/// 4. **Economy and pacing.** A command is emitted only when the RTP code or period
///    changes; stamps never go backwards; of the changes at one microsecond only the
///    last counts. And never more than the board takes in: a stamp carrying k writes
///    holds the next one back by k × `writeSpacingMicroseconds` (`BoardIntake`, the
///    board's stated intake), every change due within that slot landing in it,
///    the last value winning (`CommandEmitter`). A change after a quiet spell goes
///    out on its own microsecond, so a transient's onset is on time; a burst's
///    brake or end, a step's next level, the next of transients closer than the
///    spacing, come out at most a slot late, at the value the drive then has (a
///    pulse shorter than a slot is lengthened to it, never dropped; only a value
///    that was itself waiting for a slot can be replaced in it: the phases of one
///    burst are milliseconds apart, so what merges is transients that would cut
///    each other short anyway, the latest winning as rule 3 has it); what
///    a later value replaced within a slot is counted (`mergedWrites`), as are writes
///    sent after their own time (`delayedWrites`). Whatever the pattern, the board
///    gets at most 1000 / spacing writes a millisecond of its time.
/// 5. **Bounded work.** A step costs O(k log k) in the k transients handed to it and
///    O(1) otherwise; `checkWork(for:stepMicroseconds:playbackRate:loopLength:limits:)`
///    refuses a timeline whose transients are denser than `CompilationLimits`
///    allows before a player is made from it.
public struct DriveCompiler: Sendable {
    public let target: DriveTarget
    /// Rises and falls smaller than this are followed, not shaped (a 1 ms ramp
    /// would otherwise be all overdrive pulses).
    public var emphasisThreshold = 0.1
    /// Rule 4's pacing: the least board time (µs) a write holds the next stamp back
    /// (0: no pacing, every change on its own microsecond).
    public var writeSpacingMicroseconds: Int64 {
        get { emitter.spacing }
        set { emitter.spacing = max(0, newValue) }
    }
    /// Drive values rule 4's pacing never sent: a later value replaced them within
    /// their slot. Counted since the compiler was made (a reset keeps the count).
    public var mergedWrites: Int { emitter.merged }
    /// Writes rule 4's pacing sent after their own time (by less than a slot).
    public var delayedWrites: Int { emitter.delayed }

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

    // The continuous layer (rules 1 and 2): the latest step's mixed input, its
    // level, and the shaping of a step in progress (rule 2's pulse or ramp).
    private var intensity = 0.0
    private var sharpness = 0.0
    private var level = 0.0
    private var transition: Transition?
    // The transient layer (rule 3), added on top.
    private var burst: Burst?
    private var emitter = CommandEmitter()

    /// A step of the continuous level being shaped (rule 2) until `end`.
    private struct Transition: Sendable {
        enum Shape: Sendable {
            /// Open loop: full scale (+1) or full reverse (−1) ahead of the new level.
            case pulse(Double)
            /// Closed loop: linear from the drive when the step came, at `start`.
            case ramp(from: Double, start: Int64)
        }
        var end: Int64
        var shape: Shape

        /// The drive at `time` (within the transition), heading for `level`.
        func drive(at time: Int64, towards level: Double) -> Double {
            switch shape {
            case .pulse(let pulse): return pulse
            case .ramp(let from, let start):
                let progress = end > start ? Double(min(max(time - start, 0), end - start)) / Double(end - start) : 1
                return from + (level - from) * progress
            }
        }
    }

    /// A burst in progress, with the parameters of the transient(s) it plays.
    private struct Burst: Sendable {
        var intensity: Double
        var sharpness: Double
        var overdriveEnd: Int64
        var end: Int64
        /// What the brake takes back; set when the overdrive ends.
        var brakeShare: Double?
        var level: Double { intensity * intensity }
        var nextChange: Int64 { brakeShare == nil ? overdriveEnd : end }
    }

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

    /// Overdrive and brake lengths of a transient, µs (rule 3). No brake in closed
    /// loop: the chip brakes the burst back to the continuous level by itself.
    public func burstDurations(sharpness: Double) -> (overdrive: Int64, brake: Int64) {
        let s = Self.unit(sharpness)
        if let f = driveFrequency(sharpness: s) {
            let period = 1e6 / f
            return (Self.duration((3 - s) * period), target.loop == .closed ? 0 : Self.duration(period))
        }
        let od = target.timeConstantMicroseconds * (1 - s / 2)
        return (Self.duration(od), Self.duration(od / 2))
    }

    /// A length in whole µs, within an hour: whatever a hand-made profile holds, the
    /// conversion never traps.
    static func duration(_ microseconds: Double) -> Int64 {
        guard microseconds.isFinite else { return 0 }
        return Int64(min(max(microseconds, 0), 3.6e9).rounded())
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
    /// (previous time, time]. Returns the commands, stamped at or before `time`
    /// (one paced past the previous step's time comes out here, before this one's).
    public mutating func step(time: Int64, intensity: Double, sharpness: Double, transients: [Transient] = []) -> [TimedCommand] {
        var out: [TimedCommand] = []
        let due = Self.merged(transients, until: time)
        var next = 0
        // Changes due by `time`, in time order; at one time the continuous layer's
        // first, then the burst's own phase, then a new transient.
        while true {
            let transitionEnd = transition?.end, burstChange = burst?.nextChange
            let transientTime = next < due.count ? due[next].time : nil
            let t = min(transitionEnd ?? .max, burstChange ?? .max, transientTime ?? .max)
            guard t <= time else { break }
            if transitionEnd == t {
                transition = nil
            } else if burstChange == t {
                advanceBurst()
            } else if transientTime == t {
                startBurst(due[next], at: t)
                next += 1
            } else {
                break
            }
            drive(at: t, into: &out)
        }
        updateContinuous(time: time, intensity: Self.unit(intensity), sharpness: Self.unit(sharpness))
        drive(at: time, into: &out)
        // A change waiting for a slot after `time` stays: the next step may replace it.
        emitter.flush(upTo: time, into: &out)
        return out
    }

    /// Ends the program at `time`: bursts and step shaping are cut, the drive goes to 0
    /// (at `time`, or at the slot rule 4's pacing holds, a fraction of a millisecond on).
    public mutating func finish(at time: Int64) -> [TimedCommand] {
        var out: [TimedCommand] = []
        burst = nil
        transition = nil
        intensity = 0
        level = 0
        emitter.set(code: 0, period: nil, at: time, into: &out)
        emitter.flush(into: &out)
        return out
    }

    /// No burst or step shaping running and the drive at rest: nothing more to send
    /// until new input.
    public var isSettled: Bool { burst == nil && transition == nil && !emitter.hasPending && (emitter.lastCode ?? 0) == 0 }

    /// Forgets what the chip was last told (after a stop or reset the next command
    /// must be sent whatever it is).
    public mutating func reset() {
        intensity = 0
        sharpness = 0
        level = 0
        transition = nil
        burst = nil
        emitter.forgetChipState()
    }

    /// As `reset()`, after the caller itself wrote RTP_INPUT = 0 (the engine's set-up
    /// block): idle steps then send nothing, so the first command of a start is its own
    /// step, never an RTP 0 stamped before it.
    public mutating func resetToRest() {
        reset()
        emitter.knowAtRest()
    }

    /// Rules 1 and 2 for the step's input: the new level, shaped where it steps far
    /// enough (while a shaping runs, steps only move the level it heads for).
    private mutating func updateContinuous(time: Int64, intensity: Double, sharpness: Double) {
        let newLevel = continuousLevel(intensity: intensity)
        let delta = newLevel - level
        // A rise takes the sharpness of what starts, a fall that of what ends.
        let s = delta > 0 ? sharpness : self.sharpness
        let scale = abs(delta) * target.timeConstantMicroseconds
        if transition == nil, abs(delta) >= emphasisThreshold {
            switch target.shaping {
            case .overdriveAndBrakeEmphasis:
                let length = Self.duration(s * scale)
                if length > 0 { transition = Transition(end: time + length, shape: .pulse(delta > 0 ? 1 : -1)) }
            case .rampedSteps:
                let length = Self.duration((1 - s) * scale)
                if length > 0 { transition = Transition(end: time + length, shape: .ramp(from: continuousDrive(at: time), start: time)) }
            case .openLoopFrequency:
                break
            }
        }
        self.intensity = intensity
        self.sharpness = sharpness
        level = newLevel
    }

    private mutating func startBurst(_ t: Transient, at time: Int64) {
        guard t.intensity > 0 else { return }
        let (od, br) = burstDurations(sharpness: t.sharpness)
        burst = Burst(intensity: t.intensity, sharpness: t.sharpness, overdriveEnd: time + od, end: time + od + br)
    }

    /// Overdrive → brake (taking back what the overdrive adds now), brake → done;
    /// overdrive → done where there is no brake phase.
    private mutating func advanceBurst() {
        guard var b = burst else { return }
        if b.brakeShare == nil, b.end > b.overdriveEnd {
            b.brakeShare = max(0, min(b.level, 1 - continuousDrive(at: b.overdriveEnd)))
            burst = b
        } else {
            burst = nil
        }
    }

    /// The continuous layer's drive: its level, or that of the step shaping it.
    private func continuousDrive(at time: Int64) -> Double { transition?.drive(at: time, towards: level) ?? level }

    /// The drive now: the continuous layer with any burst added (rule 3), and the
    /// drive frequency of the sharpness playing (rule 2; the burst's mixed in).
    private mutating func drive(at time: Int64, into out: inout [TimedCommand]) {
        let c = continuousDrive(at: time)
        var level = c
        var sharpness: Double? = intensity > 0 ? self.sharpness : nil
        if let b = burst {
            level = b.brakeShare.map { c - $0 } ?? min(1, c + b.level)
            sharpness = MixingRule.resolve(
                totalIntensity: intensity + b.intensity, weightedSharpness: intensity * self.sharpness + b.intensity * b.sharpness,
                latestSharpness: b.sharpness
            ).sharpness
        }
        emitter.set(code: Self.code(max(target.minimumLevel, level)), period: sharpness.flatMap(periodCode(sharpness:)), at: time, into: &out)
    }

    /// Rule 2 on a DRV2605L with an LRA: the OL_LRA_PERIOD code of a sharpness; nil
    /// where sharpness does not set the frequency.
    private func periodCode(sharpness: Double) -> UInt8? {
        guard target.shaping == .openLoopFrequency, let f = driveFrequency(sharpness: sharpness) else { return nil }
        return Self.periodCode(frequencyHz: f)
    }

    /// The transients due by `time`, in time order, those at one microsecond mixed
    /// into one (`MixingRule`), parameters in 0...1; a transient stamped after
    /// `time` plays at `time`.
    static func merged(_ transients: [Transient], until time: Int64) -> [Transient] {
        var out: [Transient] = []
        var sum = 0.0, weighted = 0.0
        for t in transients.sorted(by: { $0.time < $1.time }) {
            let at = min(t.time, time), i = unit(t.intensity), s = unit(t.sharpness)
            if out.last?.time != at {
                sum = 0
                weighted = 0
                out.append(Transient(time: at, intensity: 0, sharpness: s))
            }
            sum += i
            weighted += i * s
            let mixed = MixingRule.resolve(totalIntensity: sum, weightedSharpness: weighted, latestSharpness: s)
            out[out.count - 1].intensity = mixed.intensity
            out[out.count - 1].sharpness = mixed.sharpness
        }
        return out
    }

    static func periodCode(frequencyHz: Double) -> UInt8 {
        DRV2605Formulas.openLoopPeriodCode(frequencyHz: frequencyHz)
    }
}
