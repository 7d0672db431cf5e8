/// One event of a pattern: a transient tap, a continuous vibration, or an audio
/// event (kept and reported, never played: the bench has no speaker).
public struct HapticEvent: Sendable, Hashable {
    public enum EventType: String, Sendable, CaseIterable, Hashable {
        case hapticTransient = "HapticTransient"
        case hapticContinuous = "HapticContinuous"
        case audioContinuous = "AudioContinuous"
        case audioCustom = "AudioCustom"

        public var isAudio: Bool { self == .audioContinuous || self == .audioCustom }
    }

    /// The waveform file of an AudioCustom event, as the AHAP names it.
    public struct Waveform: Sendable, Hashable {
        public var path: String
        public var useVolumeEnvelope: Bool
        public var loopEnabled: Bool

        public init(path: String, useVolumeEnvelope: Bool = false, loopEnabled: Bool = false) {
            self.path = path
            self.useVolumeEnvelope = useVolumeEnvelope
            self.loopEnabled = loopEnabled
        }
    }

    /// Core Haptics' ceiling on a continuous event.
    public static let maximumContinuousDuration = 30.0

    public var type: EventType
    /// Seconds from the start of the pattern.
    public var time: Double
    /// Seconds. Continuous events always have one. A transient's is optional: its
    /// logical length — CHHapticEvent.h: "For Transient event types, the logical
    /// length of the event (used to determine pattern end and loop points)" — which
    /// pads the pattern without lengthening the tap. nil for an AudioCustom event
    /// that plays its whole file.
    public var duration: Double?
    public var parameters: EventParameters
    public var waveform: Waveform?

    public init(
        type: EventType, time: Double, duration: Double? = nil,
        parameters: EventParameters = EventParameters(), waveform: Waveform? = nil
    ) {
        self.type = type
        self.time = time
        self.duration = duration
        self.parameters = parameters
        self.waveform = waveform
    }

    public static func transient(at time: Double, intensity: Double = 1, sharpness: Double = 1) -> HapticEvent {
        HapticEvent(type: .hapticTransient, time: time,
                    parameters: EventParameters(intensity: intensity, sharpness: sharpness))
    }

    public static func continuous(
        at time: Double, duration: Double, intensity: Double = 1, sharpness: Double = 1,
        attack: Double = 0, decay: Double = 0, release: Double = 0, sustained: Bool = true
    ) -> HapticEvent {
        HapticEvent(
            type: .hapticContinuous, time: time, duration: duration,
            parameters: EventParameters(intensity: intensity, sharpness: sharpness, attackTime: attack,
                                        decayTime: decay, releaseTime: release, sustained: sustained))
    }

    /// Where the event ends, in pattern seconds: its time plus its duration (a
    /// transient without a logical duration ends where it starts).
    public var endTime: Double { time + (duration ?? 0) }
}
