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

    public var version: Double
    public var metadata: Metadata
    public var events: [HapticEvent]
    public var parameters: [DynamicParameter]
    public var curves: [ParameterCurve]

    public init(
        events: [HapticEvent], parameters: [DynamicParameter] = [], curves: [ParameterCurve] = [],
        metadata: Metadata = Metadata(), version: Double = 1
    ) {
        self.version = version
        self.metadata = metadata
        self.events = events
        self.parameters = parameters
        self.curves = curves
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
}
