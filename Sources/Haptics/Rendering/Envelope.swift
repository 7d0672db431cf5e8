import Foundation

/// The attack / decay / release shape of a lasting event.
///
/// Core Haptics gives AttackTime, DecayTime and ReleaseTime as 0…1 values that
/// "lengthen exponentially" without publishing the curve. Ours is
/// `seconds(v) = (1001^v − 1) / 1000`: 0 → 0 s, 0.5 → 30.6 ms, 1 → 1 s, so equal
/// steps of the value feel like equal steps of the time, as with audio envelopes.
public struct Envelope: Sendable, Equatable {
    public var attack: Double
    public var decay: Double
    public var release: Double
    public var sustained: Bool
    public var duration: Double

    public static func seconds(for value: Double) -> Double {
        let v = min(max(value, 0), 1)
        return (pow(1001, v) - 1) / 1000
    }

    /// The envelope of `event`, with the time controls in force when it starts
    /// added to its 0…1 values (they are fixed for the event's life).
    public init(event: HapticEvent, attackControl: Double = 0, decayControl: Double = 0, releaseControl: Double = 0) {
        let p = event.parameters
        self.init(
            attack: Self.seconds(for: p.attackTime + attackControl),
            decay: Self.seconds(for: p.decayTime + decayControl),
            release: Self.seconds(for: p.releaseTime + releaseControl),
            sustained: p.sustained, duration: event.duration ?? 0)
    }

    /// Attack and release both fit inside the duration; when they would overlap
    /// they shrink in proportion, so the peak is still reached.
    public init(attack: Double, decay: Double, release: Double, sustained: Bool, duration: Double) {
        let fit = attack + release > duration && attack + release > 0 ? duration / (attack + release) : 1
        self.attack = attack * fit
        self.release = release * fit
        self.decay = decay
        self.sustained = sustained
        self.duration = duration
    }

    /// The gain (0…1) at `t` seconds after the event starts; 0 outside [0, duration).
    /// Linear ramps: attack 0 → 1 from the start, then either a hold (sustained) or
    /// a fall to 0 over the decay time, and a release to 0 ending at the duration.
    public func gain(at t: Double) -> Double {
        guard t >= 0, t < duration else { return 0 }
        let attackGain = attack > 0 ? min(1, t / attack) : 1
        var body = 1.0
        if !sustained, t > attack {
            body = decay > 0 ? max(0, 1 - (t - attack) / decay) : 0
        }
        let releaseGain = release > 0 ? min(1, (duration - t) / release) : 1
        return attackGain * body * releaseGain
    }
}
