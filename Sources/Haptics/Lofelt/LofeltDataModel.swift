/// The `.haptic` v1 document, decoded and validated by the rules of Meta's own
/// reader (meta-haptics-sdk, `core/haptic_data`: `Version::from_json`, serde's
/// `v1::HapticData` and `v1::HapticData::validate`), rule for rule:
///
/// - `version.major` is required and must be 1; `minor` and `patch` are optional;
///   all three are non-negative integers (serde's `u32`).
/// - `signals.continuous.envelopes.amplitude` is required; `frequency`, `metadata`
///   and each breakpoint's `emphasis` are optional (`null` is absent). Metadata
///   fields (`editor`, `author`, `source`, `project`, `description`) are strings,
///   `tags` an array of strings. A known field given twice is an error (serde's
///   "duplicate field"); unknown fields are ignored (with a warning here).
/// - Each amplitude breakpoint, in this order: amplitude in 0…1; time not before
///   the previous breakpoint's, the first at 0 or later; emphasis amplitude and
///   frequency in 0…1; emphasis amplitude not below the breakpoint's amplitude.
/// - The amplitude envelope holds at least two breakpoints, and its last time is
///   after its first (a clip longer than zero).
/// - Each frequency breakpoint: frequency in 0…1; times never decrease, from 0.
/// - Strict validation only: each frequency breakpoint's time lies within the
///   amplitude envelope (first to last amplitude time).
///
/// Unlike AHAP, a value out of range is an error, not a clamp: that is how the
/// format's tools treat it.
struct LofeltDataModel {
    struct Emphasis {
        var amplitude: Double
        var frequency: Double
    }

    struct AmplitudePoint {
        var time: Double
        var amplitude: Double
        var emphasis: Emphasis?
    }

    struct FrequencyPoint {
        var time: Double
        var frequency: Double
    }

    var project: String?
    var author: String?
    var description: String?
    var amplitude: [AmplitudePoint] = []
    var frequency: [FrequencyPoint] = []

    private static let serdeDuplicate = "Meta's reader refuses a repeated field (serde: \"duplicate field\")"

    /// Reads an object whose known fields, as serde does, may not repeat.
    private static func fields(_ cursor: JSONCursor, _ known: [String]) throws(PatternLoadError) -> ObjectReader {
        let object = try ObjectReader(cursor)
        try object.rejectRepeated(known, why: serdeDuplicate)
        return object
    }

    static func decode(
        _ root: JSONCursor, validation: LofeltHapticReader.Validation, limits: PatternLimits, warnings: inout [PatternWarning]
    ) throws(PatternLoadError) -> LofeltDataModel {
        guard case .object = root.value else {
            throw PatternLoadError(path: "(root)", rule: "a .haptic document is a JSON object, found \(root.value.typeDescription)")
        }
        var model = LofeltDataModel()
        var document = try fields(root, ["version", "metadata", "signals"])
        if !document.has("version"), !document.has("signals"), PatternFormat.apparent(root.value) == .ahap {
            throw PatternFormat.misnamed(.ahap, readAs: .lofeltHaptic)
        }
        try checkVersion(try document.require("version", rule: "required: {\"major\": 1, …}"), warnings: &warnings)
        if let metadata = document.take("metadata"), metadata.value != .null {
            try model.readMetadata(metadata, warnings: &warnings)
        }

        var signals = try fields(try document.require("signals", rule: "required: the signals object"), ["continuous"])
        var continuous = try fields(try signals.require("continuous", rule: "required: the continuous signal"), ["envelopes"])
        var envelopes = try fields(
            try continuous.require("envelopes", rule: "required: the amplitude (and optional frequency) envelopes"),
            ["amplitude", "frequency"])
        let amplitude = try envelopes.require("amplitude", rule: "required: the amplitude envelope")
        model.amplitude = try readAmplitude(amplitude, limits: limits, warnings: &warnings)
        if let frequency = envelopes.take("frequency"), frequency.value != .null {
            model.frequency = try readFrequency(
                frequency, within: model.amplitude[0].time...model.amplitude[model.amplitude.count - 1].time,
                validation: validation, limits: limits, warnings: &warnings)
        }
        for reader in [envelopes, continuous, signals, document] { warnings += reader.unusedAndDuplicateWarnings() }
        return model
    }

    /// serde's `u32`: a whole number from 0 up.
    private static func unsignedInteger(_ cursor: JSONCursor) throws(PatternLoadError) -> Double {
        let value = try cursor.finiteNumber()
        guard value >= 0, value == value.rounded(), value <= Double(UInt32.max) else {
            throw PatternLoadError(path: cursor.path, rule: "a version number is a whole number from 0 up, found \(JSONWriter.format(value))")
        }
        return value
    }

    private static func checkVersion(_ cursor: JSONCursor, warnings: inout [PatternWarning]) throws(PatternLoadError) {
        var version = try fields(cursor, ["major", "minor", "patch"])
        let major = try unsignedInteger(try version.require("major", rule: "required: the data model's major version"))
        guard major == 1 else {
            throw PatternLoadError(path: cursor.child("major"), rule: "version \(JSONWriter.format(major)) is not supported; this reader knows data model v1")
        }
        for key in ["minor", "patch"] { if let part = version.take(key) { _ = try unsignedInteger(part) } }
        warnings += version.unusedAndDuplicateWarnings()
    }

    private mutating func readMetadata(_ cursor: JSONCursor, warnings: inout [PatternWarning]) throws(PatternLoadError) {
        var metadata = try Self.fields(cursor, ["editor", "author", "source", "project", "tags", "description"])
        func text(_ key: String) throws(PatternLoadError) -> String? { try metadata.take(key)?.string() }
        project = try text("project")
        author = try text("author")
        description = try text("description")
        _ = try text("editor")
        _ = try text("source")
        if let tags = metadata.take("tags") { for (i, tag) in try tags.array().enumerated() {
            _ = try tags.item(i, tag).string()
        } }
        warnings += metadata.unusedAndDuplicateWarnings()
    }

    private static func unit(_ cursor: JSONCursor, name: String) throws(PatternLoadError) -> Double {
        let value = try cursor.finiteNumber()
        guard (0...1).contains(value) else {
            throw PatternLoadError(path: cursor.path, rule: "\(name) \(JSONWriter.format(value)) is outside 0…1")
        }
        return value
    }

    private static func time(_ cursor: JSONCursor, after previous: Double, limits: PatternLimits) throws(PatternLoadError) -> Double {
        let value = try cursor.finiteNumber()
        guard value >= previous else {
            throw PatternLoadError(
                path: cursor.path,
                rule: value < 0 ? "breakpoint times start at 0 or later, found \(JSONWriter.format(value))"
                    : "breakpoint times must not decrease (\(JSONWriter.format(value)) after \(JSONWriter.format(previous)))")
        }
        guard value <= limits.maxTime else {
            throw PatternLoadError(path: cursor.path, rule: "time \(JSONWriter.format(value)) s is beyond the \(JSONWriter.format(limits.maxTime)) s limit")
        }
        return value
    }

    private static func breakpoints(_ cursor: JSONCursor, limits: PatternLimits) throws(PatternLoadError) -> [JSONValue] {
        let items = try cursor.array()
        guard items.count <= limits.maxControlPointsPerCurve * 8 else {
            throw PatternLoadError(path: cursor.path, rule: "\(items.count) breakpoints; the limit is \(limits.maxControlPointsPerCurve * 8)")
        }
        return items
    }

    private static func readAmplitude(
        _ cursor: JSONCursor, limits: PatternLimits, warnings: inout [PatternWarning]
    ) throws(PatternLoadError) -> [AmplitudePoint] {
        let items = try breakpoints(cursor, limits: limits)
        var points: [AmplitudePoint] = []
        points.reserveCapacity(items.count)
        var previous = 0.0
        for (index, item) in items.enumerated() {
            var object = try fields(cursor.item(index, item), ["time", "amplitude", "emphasis"])
            let timeCursor = try object.require("time", rule: "required: the breakpoint's time in seconds")
            let amplitude = try unit(try object.require("amplitude", rule: "required: the breakpoint's amplitude"), name: "amplitude")
            let t = try time(timeCursor, after: previous, limits: limits)
            var point = AmplitudePoint(time: t, amplitude: amplitude)
            if let emphasisCursor = object.take("emphasis"), emphasisCursor.value != .null {
                var emphasis = try fields(emphasisCursor, ["amplitude", "frequency"])
                let a = try unit(try emphasis.require("amplitude", rule: "required: the emphasis amplitude"), name: "emphasis amplitude")
                let f = try unit(try emphasis.require("frequency", rule: "required: the emphasis frequency"), name: "emphasis frequency")
                guard a >= amplitude else {
                    throw PatternLoadError(
                        path: emphasisCursor.child("amplitude"),
                        rule: "an emphasis may not be weaker than its breakpoint (\(JSONWriter.format(a)) < \(JSONWriter.format(amplitude)))")
                }
                warnings += emphasis.unusedAndDuplicateWarnings()
                point.emphasis = Emphasis(amplitude: a, frequency: f)
            }
            warnings += object.unusedAndDuplicateWarnings()
            points.append(point)
            previous = t
        }
        // Meta's validator: "the amplitude envelope must contain at least two
        // breakpoints" and "must have a duration greater than zero".
        guard points.count >= 2 else {
            throw PatternLoadError(path: cursor.path, rule: "the amplitude envelope must contain at least two breakpoints, found \(points.count)")
        }
        guard points[points.count - 1].time > points[0].time else {
            throw PatternLoadError(
                path: cursor.path,
                rule: "the amplitude envelope must have a duration greater than zero (every breakpoint is at \(JSONWriter.format(points[0].time)) s)")
        }
        return points
    }

    private static func readFrequency(
        _ cursor: JSONCursor, within envelope: ClosedRange<Double>, validation: LofeltHapticReader.Validation,
        limits: PatternLimits, warnings: inout [PatternWarning]
    ) throws(PatternLoadError) -> [FrequencyPoint] {
        var points: [FrequencyPoint] = []
        var previous = 0.0
        var outside: (path: String, time: Double, count: Int)?
        for (index, item) in try breakpoints(cursor, limits: limits).enumerated() {
            var object = try fields(cursor.item(index, item), ["time", "frequency"])
            let timeCursor = try object.require("time", rule: "required: the breakpoint's time in seconds")
            let frequency = try unit(try object.require("frequency", rule: "required: the breakpoint's frequency"), name: "frequency")
            let t = try time(timeCursor, after: previous, limits: limits)
            if !envelope.contains(t) {
                let rule = "frequency breakpoint at \(JSONWriter.format(t)) s lies outside the amplitude envelope (\(JSONWriter.format(envelope.lowerBound))…\(JSONWriter.format(envelope.upperBound)) s)"
                if validation == .strict { throw PatternLoadError(path: timeCursor.path, rule: rule) }
                outside = (outside?.path ?? timeCursor.path, outside?.time ?? t, (outside?.count ?? 0) + 1)
            }
            warnings += object.unusedAndDuplicateWarnings()
            points.append(FrequencyPoint(time: t, frequency: frequency))
            previous = t
        }
        if let outside {
            let others = outside.count > 1 ? " (and \(outside.count - 1) more)" : ""
            warnings.append(PatternWarning(
                path: outside.path, kind: .compatibility,
                message: "frequency breakpoint at \(JSONWriter.format(outside.time)) s\(others) lies outside the amplitude envelope (\(JSONWriter.format(envelope.lowerBound))…\(JSONWriter.format(envelope.upperBound)) s): Meta's strict validation rejects this; Haptics Studio loads it, and so does this reader"))
        }
        return points
    }
}
