public struct RenderOptions: Sendable, Equatable {
    /// Samples per second of output time.
    public var sampleRate: Double
    /// Core Haptics' playbackRate: > 0; 2 plays twice as fast (every time halves).
    public var playbackRate: Double
    /// A guard on memory: 5 M samples is 83 minutes at 1 kHz.
    public var maxSamples: Int

    public init(sampleRate: Double = 1000, playbackRate: Double = 1, maxSamples: Int = 5_000_000) {
        self.sampleRate = sampleRate
        self.playbackRate = playbackRate
        self.maxSamples = maxSamples
    }
}

public enum RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidSampleRate(Double)
    case invalidPlaybackRate(Double)
    case tooManySamples(needed: Double, limit: Int)

    public var description: String {
        switch self {
        case .invalidSampleRate(let rate):
            "sample rate \(rate) Hz: it must be a finite number between 1 Hz and 1 MHz"
        case .invalidPlaybackRate(let rate):
            "playback rate \(rate): it must be a finite number > 0 (1 plays at the written speed)"
        case .tooManySamples(let needed, let limit):
            "rendering would need \(Int(needed.rounded(.up))) samples; the limit is \(limit) (lower the sample rate or shorten the pattern)"
        }
    }
}
