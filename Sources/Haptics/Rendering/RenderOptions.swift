public struct RenderOptions: Sendable, Equatable {
    /// Which events HapticSharpnessControl (parameters and curves) reaches. Apple's
    /// documents disagree: the AHAP article says it "affects only continuous
    /// haptics"; CHHapticParameter.h says it adjusts "all active and future haptic
    /// events". The article is the default (see the README's "Rendering rules").
    public enum SharpnessControlScope: Sendable, Equatable {
        /// "Representing haptic patterns in AHAP files": transients keep their own sharpness.
        case continuousEvents
        /// CHHapticParameter.h: transients take the control too.
        case allHapticEvents
    }

    /// Samples per second of output time.
    public var sampleRate: Double
    /// Core Haptics' playbackRate: > 0; 2 plays twice as fast (every time halves).
    public var playbackRate: Double
    public var sharpnessControl: SharpnessControlScope
    /// A guard on memory: 5 M samples is 83 minutes at 1 kHz.
    public var maxSamples: Int
    /// A guard on time: the samples of continuous events, summed over events (so
    /// events that overlap count once each). 100 M is well under a second of
    /// rendering (`scripts/bench` measures 98 M), and a hundred 30 s events
    /// overlapping all the way at 1 kHz.
    public var maxEventSamples: Int

    public init(
        sampleRate: Double = 1000, playbackRate: Double = 1, sharpnessControl: SharpnessControlScope = .continuousEvents,
        maxSamples: Int = 5_000_000, maxEventSamples: Int = 100_000_000
    ) {
        self.sampleRate = sampleRate
        self.playbackRate = playbackRate
        self.sharpnessControl = sharpnessControl
        self.maxSamples = maxSamples
        self.maxEventSamples = maxEventSamples
    }
}

public enum RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidSampleRate(Double)
    case invalidPlaybackRate(Double)
    case tooManySamples(needed: Double, limit: Int)
    case tooMuchWork(eventSamples: Double, limit: Int)

    public var description: String {
        switch self {
        case .invalidSampleRate(let rate):
            "sample rate \(rate) Hz: it must be a finite number between 1 Hz and 1 MHz"
        case .invalidPlaybackRate(let rate):
            "playback rate \(rate): it must be a finite number > 0 (1 plays at the written speed)"
        case .tooManySamples(let needed, let limit):
            "rendering would need \(JSONWriter.format(needed.rounded(.up))) samples; the limit is \(limit) (lower the sample rate or shorten the pattern)"
        case .tooMuchWork(let eventSamples, let limit):
            "rendering would compute \(JSONWriter.format(eventSamples)) samples of continuous events (each event's samples, summed over events that overlap); the limit is \(limit) (lower the sample rate, or use fewer overlapping events)"
        }
    }
}
