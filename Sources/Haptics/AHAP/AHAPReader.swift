/// Reads Apple Haptic and Audio Pattern (AHAP) documents by Apple's loading rules:
/// a missing key takes its default, an out-of-range value is clamped, an unknown
/// key is ignored — each clamp and ignored key reported as a warning with its JSON
/// path — and a document that cannot be a pattern is a `PatternLoadError` naming
/// the path and the rule it broke.
///
/// Apple's article calls AHAP "a JSON-like file format", and Apple's own sample
/// files carry trailing commas: those are accepted, each with a warning. Every
/// other departure from JSON is an error.
public struct AHAPReader {
    public enum ControlPointTimes: Sendable {
        /// Core Haptics' rule: a control point's Time counts from its curve's Time.
        case relativeToCurve
        /// How Lofelt's haptic2ahap writes them: already pattern times (its curves'
        /// Time equals their first point's). Read such files with this to play them
        /// as their author heard them.
        case absolute
    }

    public struct Options: Sendable {
        public var controlPointTimes: ControlPointTimes
        public var limits: PatternLimits

        public init(controlPointTimes: ControlPointTimes = .relativeToCurve, limits: PatternLimits = PatternLimits()) {
            self.controlPointTimes = controlPointTimes
            self.limits = limits
        }
    }

    public static func read(_ bytes: [UInt8], options: Options = Options()) throws(PatternLoadError) -> LoadedPattern {
        let text = try PatternText.parse(bytes, limits: options.limits.json, trailingCommas: .acceptedWithWarning)
        var loaded = try read(text.value, options: options)
        loaded.warnings = text.warnings.map { warning in
            var warning = warning
            warning.message += " (JSON has none; Apple's own sample AHAP files do)"
            return warning
        } + loaded.warnings
        return loaded
    }

    public static func read(_ text: String, options: Options = Options()) throws(PatternLoadError) -> LoadedPattern {
        try read(Array(text.utf8), options: options)
    }

    public static func read(_ json: JSONValue, options: Options = Options()) throws(PatternLoadError) -> LoadedPattern {
        var reader = AHAPReader(options: options)
        let pattern = try reader.readDocument(JSONCursor(root: json))
        return LoadedPattern(pattern: pattern, warnings: reader.warnings)
    }

    private static let entryKinds = ["Event", "Parameter", "ParameterCurve"]
    private static let eventTypeNames = HapticEvent.EventType.allCases.map(\.rawValue).joined(separator: ", ")

    private let options: Options
    private var warnings: [PatternWarning] = []
    /// Curves whose control-point times look absolute (see `noteAbsoluteLooking`):
    /// the first one's path and start, and how many, reported once per document.
    private var absoluteLooking: (path: String, start: Double, count: Int)?

    private init(options: Options) { self.options = options }

    private mutating func warn(_ path: String, _ kind: PatternWarning.Kind, _ message: String) {
        warnings.append(PatternWarning(path: path, kind: kind, message: message))
    }

    private mutating func finish(_ object: ObjectReader, known: [String]) {
        warnings += object.unusedAndDuplicateWarnings(known: known)
    }

    /// The keys each kind of AHAP object may hold, for "did you mean" hints.
    private enum Keys {
        static let document = ["Version", "Metadata", "Pattern"]
        static let waveform = ["EventWaveformPath", "EventWaveformUseVolumeEnvelope", "EventWaveformLoopEnabled"]
        static let event = ["Time", "EventType", "EventDuration", "EventParameters"] + waveform
        static let parameter = ["ParameterID", "ParameterValue"]
        static let dynamicParameter = ["ParameterID", "Time", "ParameterValue"]
        static let curve = ["ParameterID", "Time", "ParameterCurveControlPoints"]
        static let controlPoint = ["Time", "ParameterValue"]
        static let eventParameterIDs = EventParameterID.allCases.map(\.rawValue)
        static let dynamicParameterIDs = DynamicParameterID.allCases.map(\.rawValue)
        static let eventTypes = HapticEvent.EventType.allCases.map(\.rawValue)
    }

    // MARK: Document

    private mutating func readDocument(_ root: JSONCursor) throws(PatternLoadError) -> HapticPattern {
        guard case .object = root.value else {
            throw PatternLoadError(path: "(root)", rule: "an AHAP document is a JSON object, found \(root.value.typeDescription)")
        }
        var document = try ObjectReader(root)
        if !document.has("Pattern"), let format = PatternFormat.apparent(root.value), format != .ahap {
            throw PatternFormat.misnamed(format, readAs: .ahap)
        }
        var pattern = HapticPattern(events: [])
        if let version = document.take("Version") {
            pattern.version = try version.finiteNumber()
            if pattern.version != 1 {
                warn(version.path, .compatibility,
                     "Version \(JSONWriter.format(pattern.version)) is not the 1.0 this reader knows; read as 1.0")
            }
        }
        if let metadata = document.take("Metadata") { pattern.metadata = try readMetadata(metadata) }
        let patternCursor = try document.require(
            "Pattern", rule: "required: an AHAP document needs a Pattern array of events and parameters")
        let entries = try patternCursor.array()
        guard entries.count <= options.limits.maxEntries else {
            throw PatternLoadError(path: "Pattern", rule: "\(entries.count) entries; the limit is \(options.limits.maxEntries)")
        }
        for (index, entry) in entries.enumerated() {
            try readEntry(patternCursor.item(index, entry), into: &pattern)
        }
        finish(document, known: Keys.document)
        if let absoluteLooking {
            let others = absoluteLooking.count > 1 ? " (and in \(absoluteLooking.count - 1) more curves)" : ""
            warn(absoluteLooking.path, .compatibility,
                 "the first control point's Time equals the curve's own Time, \(JSONWriter.format(absoluteLooking.start)) s\(others): "
                     + "these look like absolute times, as Lofelt's and Meta's converters write them; read as Core Haptics does "
                     + "(relative to the curve) the curve plays \(JSONWriter.format(absoluteLooking.start)) s late. "
                     + "If the file means absolute times, use --curve-times absolute")
        }
        return pattern
    }

    private mutating func readMetadata(_ cursor: JSONCursor) throws(PatternLoadError) -> HapticPattern.Metadata {
        var entries: [HapticPattern.Metadata.Entry] = []
        for member in try cursor.object() {
            guard case .string(let text) = member.value else {
                warn(cursor.child(member.key), .ignoredValue,
                     "metadata values are strings; \(member.value.typeDescription) ignored")
                continue
            }
            entries.append(.init(key: member.key, value: text))
        }
        // A repeated key keeps its last value, in the last one's place. Hashed, not
        // searched per key: a hostile file may hold a million of them.
        var seen = Set<String>()
        var kept: [HapticPattern.Metadata.Entry] = []
        for entry in entries.reversed() {
            if seen.insert(entry.key).inserted {
                kept.append(entry)
            } else {
                warn(cursor.child(entry.key), .duplicate, "key repeated; the last value is used")
            }
        }
        return HapticPattern.Metadata(kept.reversed())
    }

    private mutating func readEntry(_ cursor: JSONCursor, into pattern: inout HapticPattern) throws(PatternLoadError) {
        var entry = try ObjectReader(cursor)
        let kinds = Self.entryKinds
        let present = kinds.filter { entry.has($0) }
        if present.isEmpty {
            // Apple: "The framework ignores unsupported keys." An entry that holds
            // nothing else has nothing left to play.
            warn(cursor.path, .ignoredKey, "entry ignored: it holds no Event, Parameter or ParameterCurve, only "
                 + Self.listed(entry.keys, suggestingAmong: kinds))
            return
        }
        guard present.count == 1 else {
            throw PatternLoadError(
                path: cursor.path,
                rule: "an entry holds exactly one of Event, Parameter or ParameterCurve; found \(present.joined(separator: " and "))")
        }
        switch present[0] {
        case "Event":
            if let event = try readEvent(entry.take("Event")!) { pattern.events.append(event) }
        case "Parameter":
            if let parameter = try readParameter(entry.take("Parameter")!) { pattern.parameters.append(parameter) }
        default:
            if let curve = try readCurve(entry.take("ParameterCurve")!) { pattern.curves.append(curve) }
        }
        finish(entry, known: kinds)
    }

    private static func article(_ type: HapticEvent.EventType) -> String { type.isAudio ? "an" : "a" }

    /// Keys as a warning lists them: the first few, quoted, with hints.
    private static func listed(_ keys: [String], suggestingAmong known: [String]) -> String {
        guard !keys.isEmpty else { return "nothing (an empty object)" }
        let shown = keys.prefix(3).map { Echo.quoted($0) + Suggestion.hint(for: $0, among: known) }.joined(separator: ", ")
        return keys.count > 3 ? "\(shown) and \(keys.count - 3) more keys" : shown
    }

    // MARK: Times and values

    /// A time in seconds: negative is clamped to 0 (Apple's out-of-range rule),
    /// beyond the limit is an error because rendering it would exhaust memory.
    private mutating func readTime(_ cursor: JSONCursor?, default value: Double = 0) throws(PatternLoadError) -> Double {
        guard let cursor else { return value }
        let time = try cursor.finiteNumber()
        if time < 0 {
            warn(cursor.path, .clamped, "negative time \(JSONWriter.format(time)) clamped to 0")
            return 0
        }
        guard time <= options.limits.maxTime else {
            throw PatternLoadError(path: cursor.path, rule: "time \(JSONWriter.format(time)) s is beyond the \(JSONWriter.format(options.limits.maxTime)) s limit")
        }
        return time
    }

    private mutating func clamp(_ value: Double, to range: ClosedRange<Double>, at cursor: JSONCursor, name: String) -> Double {
        let clamped = min(max(value, range.lowerBound), range.upperBound)
        if clamped != value {
            warn(cursor.path, .clamped, "\(name) \(JSONWriter.format(value)) is outside \(JSONWriter.format(range.lowerBound))…\(JSONWriter.format(range.upperBound)); clamped to \(JSONWriter.format(clamped))")
        }
        return clamped
    }

    // MARK: Events

    private mutating func readEvent(_ cursor: JSONCursor) throws(PatternLoadError) -> HapticEvent? {
        var object = try ObjectReader(cursor)
        let typeCursor = try object.require(
            "EventType", rule: "required: one of \(Self.eventTypeNames)")
        let typeName = try typeCursor.string()
        guard let type = HapticEvent.EventType(rawValue: typeName) else {
            throw PatternLoadError(
                path: typeCursor.path,
                rule: "\(Echo.quoted(typeName)) is not an event type" + Suggestion.hint(for: typeName, among: Keys.eventTypes)
                    + "; use one of \(Self.eventTypeNames)")
        }
        var event = HapticEvent(type: type, time: try readTime(object.take("Time")))
        let durationCursor = object.take("EventDuration")
        event.duration = try readDuration(durationCursor, type: type, event: cursor)
        if let duration = event.duration, event.time + duration > options.limits.maxTime, let durationCursor {
            throw PatternLoadError(
                path: durationCursor.path,
                rule: "the event ends at \(JSONWriter.format(event.time + duration)) s, beyond the \(JSONWriter.format(options.limits.maxTime)) s limit")
        }
        if let list = object.take("EventParameters") {
            event.parameters = try readEventParameters(list, type: type)
        }
        if type == .audioCustom {
            let path = try object.require(
                "EventWaveformPath", rule: "required: an AudioCustom event names its waveform file").string()
            var waveform = HapticEvent.Waveform(path: path)
            if let flag = object.take("EventWaveformUseVolumeEnvelope") { waveform.useVolumeEnvelope = try flag.bool() }
            if let flag = object.take("EventWaveformLoopEnabled") { waveform.loopEnabled = try flag.bool() }
            event.waveform = waveform
        } else {
            // Documented keys, so not "unknown": the header gives EventWaveformPath
            // "For events of type CHHapticEventTypeAudioCustom" only.
            for key in Keys.waveform {
                guard let ignored = object.take(key) else { continue }
                warn(ignored.path, .ignoredKey, "\(key) applies only to AudioCustom events; ignored on \(Self.article(type)) \(type.rawValue) event")
            }
        }
        finish(object, known: Keys.event)
        return event
    }

    private mutating func readDuration(
        _ cursor: JSONCursor?, type: HapticEvent.EventType, event: JSONCursor
    ) throws(PatternLoadError) -> Double? {
        let limit = HapticEvent.maximumContinuousDuration
        switch type {
        case .hapticTransient:
            // Optional: the event's logical length, which pads the pattern and sets
            // its loop points (CHHapticEvent.h; see HapticEvent.duration).
            guard let cursor else { return nil }
            let duration = try cursor.finiteNumber()
            if duration < 0 {
                warn(cursor.path, .clamped, "negative EventDuration \(JSONWriter.format(duration)) clamped to 0")
                return 0
            }
            return duration
        case .audioCustom:
            // Optional: without it the whole waveform file plays.
            guard let cursor else { return nil }
            let duration = try cursor.finiteNumber()
            guard duration > 0 else {
                // CHHapticEvent.h, on an audio resource event's duration: "If zero, it will be ignored."
                warn(cursor.path, .ignoredValue,
                     "EventDuration \(JSONWriter.format(duration)) ignored: an AudioCustom event without a positive duration plays its whole waveform")
                return nil
            }
            return clamp(duration, to: 0...limit, at: cursor, name: "EventDuration")
        case .hapticContinuous, .audioContinuous:
            let rule = "\(Self.article(type)) \(type.rawValue) event needs a duration in (0, 30] s"
            guard let cursor else { throw PatternLoadError(path: event.child("EventDuration"), rule: rule) }
            let duration = try cursor.finiteNumber()
            guard duration > 0 else {
                throw PatternLoadError(path: cursor.path, rule: "\(rule), found \(JSONWriter.format(duration))")
            }
            return clamp(duration, to: 0...limit, at: cursor, name: "EventDuration")
        }
    }

    private mutating func readEventParameters(
        _ cursor: JSONCursor, type: HapticEvent.EventType
    ) throws(PatternLoadError) -> EventParameters {
        var parameters = EventParameters()
        var seen = Set<EventParameterID>()
        for (index, item) in try cursor.array().enumerated() {
            let itemCursor = cursor.item(index, item)
            var object = try ObjectReader(itemCursor)
            let idCursor = try object.require("ParameterID", rule: "required: which parameter this sets")
            let name = try idCursor.string()
            let valueCursor = try object.require("ParameterValue", rule: "required: the value of \(Echo.quoted(name))")
            let value = try valueCursor.finiteNumber()
            finish(object, known: Keys.parameter)
            guard let id = EventParameterID(rawValue: name) else {
                warn(idCursor.path, .ignoredValue,
                     "unknown event parameter \(Echo.quoted(name)) ignored" + Suggestion.hint(for: name, among: Keys.eventParameterIDs))
                continue
            }
            guard id.applies(to: type) else {
                warn(idCursor.path, .ignoredValue, "\(name) does not apply to \(Self.article(type)) \(type.rawValue) event; ignored")
                continue
            }
            if !seen.insert(id).inserted {
                warn(idCursor.path, .duplicate, "\(name) set twice; the last value is used")
            }
            parameters[id] = clamp(value, to: id.range, at: valueCursor, name: name)
        }
        return parameters
    }

    // MARK: Dynamic parameters and curves

    private mutating func readDynamicID(_ object: inout ObjectReader) throws(PatternLoadError) -> DynamicParameterID? {
        let idCursor = try object.require("ParameterID", rule: "required: which dynamic parameter this controls")
        let name = try idCursor.string()
        guard let id = DynamicParameterID(rawValue: name) else {
            warn(idCursor.path, .ignoredValue,
                 "unknown dynamic parameter \(Echo.quoted(name)); entry ignored" + Suggestion.hint(for: name, among: Keys.dynamicParameterIDs))
            return nil
        }
        return id
    }

    private mutating func readParameter(_ cursor: JSONCursor) throws(PatternLoadError) -> DynamicParameter? {
        var object = try ObjectReader(cursor)
        defer { finish(object, known: Keys.dynamicParameter) }
        guard let id = try readDynamicID(&object) else { return nil }
        let time = try readTime(object.take("Time"))
        var value = id.defaultValue
        if let valueCursor = object.take("ParameterValue") {
            value = clamp(try valueCursor.finiteNumber(), to: id.range, at: valueCursor, name: id.rawValue)
        }
        return DynamicParameter(id: id, value: value, time: time)
    }

    private mutating func readCurve(_ cursor: JSONCursor) throws(PatternLoadError) -> ParameterCurve? {
        var object = try ObjectReader(cursor)
        defer { finish(object, known: Keys.curve) }
        guard let id = try readDynamicID(&object) else { return nil }
        let time = try readTime(object.take("Time"))
        let pointsCursor = try object.require(
            "ParameterCurveControlPoints", rule: "required: a curve needs its control points")
        let items = try pointsCursor.array()
        guard !items.isEmpty else {
            throw PatternLoadError(path: pointsCursor.path, rule: "a curve needs at least one control point")
        }
        guard items.count <= options.limits.maxControlPointsPerCurve else {
            throw PatternLoadError(path: pointsCursor.path, rule: "\(items.count) control points; the limit is \(options.limits.maxControlPointsPerCurve)")
        }
        if items.count > ParameterCurve.corePlayableControlPoints {
            warn(pointsCursor.path, .compatibility,
                 "\(items.count) control points; Core Haptics appears to play at most \(ParameterCurve.corePlayableControlPoints) per curve (all are kept here)")
        }
        var points: [ParameterCurve.ControlPoint] = []
        points.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            var point = try ObjectReader(pointsCursor.item(index, item))
            var pointTime = try readTime(point.take("Time"))
            if index == 0, options.controlPointTimes == .relativeToCurve {
                noteAbsoluteLooking(firstPointTime: pointTime, curveTime: time, at: "\(pointsCursor.element(0)).Time")
            }
            if options.controlPointTimes == .absolute { pointTime = max(0, pointTime - time) }
            if let previous = points.last, pointTime < previous.time {
                throw PatternLoadError(
                    path: "\(pointsCursor.element(index)).Time",
                    rule: "control point times must not decrease (\(JSONWriter.format(pointTime)) after \(JSONWriter.format(previous.time)))")
            }
            var value = id.defaultValue
            if let valueCursor = point.take("ParameterValue") {
                value = clamp(try valueCursor.finiteNumber(), to: id.range, at: valueCursor, name: id.rawValue)
            }
            points.append(.init(time: pointTime, value: value))
            finish(point, known: Keys.controlPoint)
        }
        guard time + points[points.count - 1].time <= options.limits.maxTime else {
            throw PatternLoadError(path: pointsCursor.path, rule: "the curve ends beyond the \(JSONWriter.format(options.limits.maxTime)) s limit")
        }
        return ParameterCurve(id: id, time: time, controlPoints: points)
    }

    /// A curve that starts later than 0 and whose first control point sits at that
    /// same time reads, by Core Haptics' rule, as starting its shape twice as late:
    /// almost always a file written with absolute times (Lofelt's haptic2ahap and
    /// Meta's converter write the curve's Time as its first point's). A curve that
    /// starts at 0 reads the same either way, so it is not counted.
    private mutating func noteAbsoluteLooking(firstPointTime: Double, curveTime: Double, at path: String) {
        guard curveTime > 0, abs(firstPointTime - curveTime) <= 1e-9 * max(1, curveTime) else { return }
        absoluteLooking = (absoluteLooking?.path ?? path, absoluteLooking?.start ?? curveTime, (absoluteLooking?.count ?? 0) + 1)
    }
}
