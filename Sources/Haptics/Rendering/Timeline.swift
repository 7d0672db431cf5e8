/// A pattern rendered for one playback: intensity and sharpness sampled at a fixed
/// rate on the output clock, and transients as marked impulses.
public struct Timeline: Sendable, Equatable {
    /// One transient, with the parameters it plays with once the dynamic
    /// parameters in force at its moment are applied.
    public struct Transient: Sendable, Equatable {
        /// Output seconds (pattern time divided by the playback rate).
        public var time: Double
        public var intensity: Double
        public var sharpness: Double
        /// Index of the event in `HapticPattern.events`.
        public var eventIndex: Int
    }

    public var sampleRate: Double
    public var playbackRate: Double
    /// Output seconds: the pattern's duration divided by the playback rate.
    public var duration: Double
    /// Sample k is at output time k / sampleRate.
    public var intensity: [Double]
    public var sharpness: [Double]
    public var transients: [Transient]
    /// Audio events are kept in the pattern and counted here, never rendered.
    public var audioEventCount: Int

    public var sampleCount: Int { intensity.count }

    public func time(ofSample index: Int) -> Double { Double(index) / sampleRate }
}
