/// The parameters an event carries (CHHapticEvent.ParameterID), with Core Haptics'
/// ranges and defaults. Values outside the range are clamped on load.
public enum EventParameterID: String, Sendable, CaseIterable, Hashable {
    case hapticIntensity = "HapticIntensity"
    case hapticSharpness = "HapticSharpness"
    case attackTime = "AttackTime"
    case decayTime = "DecayTime"
    case releaseTime = "ReleaseTime"
    case sustained = "Sustained"
    case audioVolume = "AudioVolume"
    case audioPitch = "AudioPitch"
    case audioPan = "AudioPan"
    case audioBrightness = "AudioBrightness"

    public var range: ClosedRange<Double> {
        switch self {
        case .audioPitch, .audioPan: -1...1
        default: 0...1
        }
    }

    public var defaultValue: Double {
        switch self {
        case .hapticIntensity, .hapticSharpness, .sustained, .audioVolume, .audioBrightness: 1
        case .attackTime, .decayTime, .releaseTime, .audioPitch, .audioPan: 0
        }
    }

    /// Audio parameters only mean something on audio events, and the envelope
    /// parameters only on events that last (transients are a fixed impulse).
    public func applies(to type: HapticEvent.EventType) -> Bool {
        switch self {
        case .hapticIntensity, .hapticSharpness: !type.isAudio
        case .audioVolume, .audioPitch, .audioPan, .audioBrightness: type.isAudio
        case .attackTime, .decayTime, .releaseTime, .sustained: type != .hapticTransient
        }
    }
}

/// Parameters that change while a pattern plays (CHHapticDynamicParameter.ID).
public enum DynamicParameterID: String, Sendable, CaseIterable, Hashable {
    case hapticIntensityControl = "HapticIntensityControl"
    case hapticSharpnessControl = "HapticSharpnessControl"
    case hapticAttackTimeControl = "HapticAttackTimeControl"
    case hapticDecayTimeControl = "HapticDecayTimeControl"
    case hapticReleaseTimeControl = "HapticReleaseTimeControl"
    case audioVolumeControl = "AudioVolumeControl"
    case audioPanControl = "AudioPanControl"
    case audioPitchControl = "AudioPitchControl"
    case audioBrightnessControl = "AudioBrightnessControl"
    case audioAttackTimeControl = "AudioAttackTimeControl"
    case audioDecayTimeControl = "AudioDecayTimeControl"
    case audioReleaseTimeControl = "AudioReleaseTimeControl"

    /// Intensity and volume controls multiply (0…1, default 1); every other control
    /// adds to its event parameter (−1…1, default 0).
    public var range: ClosedRange<Double> {
        switch self {
        case .hapticIntensityControl, .audioVolumeControl: 0...1
        default: -1...1
        }
    }

    public var defaultValue: Double {
        switch self {
        case .hapticIntensityControl, .audioVolumeControl: 1
        default: 0
        }
    }

    public var isAudio: Bool { rawValue.hasPrefix("Audio") }
}
