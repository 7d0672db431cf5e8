/// A haptic pattern: events plus the dynamic parameters and curves that shape
/// them while they play. The value type behind AHAP files, .haptic imports, the
/// system library and the Swift API alike.
public struct HapticPattern: Sendable, Hashable {
    /// Free-form text from the file ("Project", "Created", "Description", …), in order.
    public struct Metadata: Sendable, Hashable {
        public var entries: [Entry]

        public struct Entry: Sendable, Hashable {
            public var key: String
            public var value: String

            public init(key: String, value: String) {
                self.key = key
                self.value = value
            }
        }

        public init(_ entries: [Entry] = []) { self.entries = entries }

        public init(project: String? = nil, created: String? = nil, description: String? = nil) {
            entries = [("Project", project), ("Created", created), ("Description", description)]
                .compactMap { key, value in value.map { Entry(key: key, value: $0) } }
        }

        public subscript(key: String) -> String? {
            get { entries.last { $0.key == key }?.value }
            set {
                entries.removeAll { $0.key == key }
                if let newValue { entries.append(Entry(key: key, value: newValue)) }
            }
        }
    }

    /// Whether the pattern's own dynamic parameters and curves reach its transients.
    public enum TransientPlayback: Sendable, Hashable {
        /// One pattern on one player, as Core Haptics plays an AHAP: HapticIntensityControl
        /// scales the transients too (and HapticSharpnessControl reaches them as
        /// `RenderOptions.sharpnessControl` says).
        case underPatternControls
        /// Meta's split (meta-haptics-sdk `SplitAhap`): the transients play on a
        /// player of their own, started with the pattern's, so none of the pattern's
        /// parameters or curves reaches them and each keeps its own intensity and
        /// sharpness. Meta: "If everything is in one AHAP, Core Haptic's
        /// CHHapticPatternPlayer modulates the transients based on the contents of the
        /// continuous curves. We however want the transients to be played back
        /// independently of the continuous curves." `.haptic` imports play this way.
        case apart
    }

    public var version: Double
    public var metadata: Metadata
    public var events: [HapticEvent]
    public var parameters: [DynamicParameter]
    public var curves: [ParameterCurve]
    public var transientPlayback: TransientPlayback

    public init(
        events: [HapticEvent], parameters: [DynamicParameter] = [], curves: [ParameterCurve] = [],
        metadata: Metadata = Metadata(), version: Double = 1, transientPlayback: TransientPlayback = .underPatternControls
    ) {
        self.version = version
        self.metadata = metadata
        self.events = events
        self.parameters = parameters
        self.curves = curves
        self.transientPlayback = transientPlayback
    }

    /// The one definition of a pattern's length, which rendering, looping and every
    /// player use. CHHapticPattern.h: "Pattern duration is calculated as the start
    /// time of the pattern's last event or parameter, plus that event's duration if
    /// present." So a Parameter or ParameterCurve counts by its start time (a
    /// curve's control points do not lengthen the pattern) and an event by its end,
    /// a transient's logical duration included. "Last" is read as last to end: an
    /// event that starts earlier but lasts longer still plays to its end.
    public var duration: Double {
        var end = 0.0
        for event in events { end = max(end, event.endTime) }
        for parameter in parameters { end = max(end, parameter.time) }
        for curve in curves { end = max(end, curve.time) }
        return end
    }

    public var hapticEvents: [HapticEvent] { events.filter { !$0.type.isAudio } }
    public var audioEvents: [HapticEvent] { events.filter { $0.type.isAudio } }

    /// The two patterns Meta's two players play (meta-haptics-sdk `SplitAhap::from`):
    /// the continuous one keeps every non-transient event, the parameters and the
    /// curves; the transients one holds the transients alone, or is nil when there are
    /// none. Each is an ordinary pattern (transients under their pattern's controls),
    /// as an AHAP file can say it; played together from one start they are this
    /// pattern played with `.apart`.
    public func splitForSeparatePlayers() -> (continuous: HapticPattern, transients: HapticPattern?) {
        let transientEvents = events.filter { $0.type == .hapticTransient }
        let continuous = HapticPattern(
            events: events.filter { $0.type != .hapticTransient }, parameters: parameters, curves: curves,
            metadata: metadata, version: version)
        guard !transientEvents.isEmpty else { return (continuous, nil) }
        return (continuous, HapticPattern(events: transientEvents, metadata: metadata, version: version))
    }
}
