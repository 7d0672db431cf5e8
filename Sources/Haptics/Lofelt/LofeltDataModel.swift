/// The `.haptic` v1 document, decoded and validated by the format's rules.
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

    static func decode(
        _ root: JSONCursor, limits: PatternLimits, warnings: inout [PatternWarning]
    ) throws(PatternLoadError) -> LofeltDataModel {
        guard case .object = root.value else {
            throw PatternLoadError(path: "(root)", rule: "a .haptic document is a JSON object, found \(root.value.typeDescription)")
        }
        var model = LofeltDataModel()
        var document = try ObjectReader(root)
        try checkVersion(try document.require("version", rule: "required: {\"major\": 1, …}"), warnings: &warnings)
        if let metadata = document.take("metadata") { try model.readMetadata(metadata, warnings: &warnings) }

        var signals = try ObjectReader(try document.require("signals", rule: "required: the signals object"))
        var continuous = try ObjectReader(try signals.require("continuous", rule: "required: the continuous signal"))
        var envelopes = try ObjectReader(try continuous.require("envelopes", rule: "required: the amplitude (and optional frequency) envelopes"))
        let amplitude = try envelopes.require("amplitude", rule: "required: the amplitude envelope")
        model.amplitude = try readAmplitude(amplitude, limits: limits, warnings: &warnings)
        if let frequency = envelopes.take("frequency"), frequency.value != .null {
            model.frequency = try readFrequency(frequency, limits: limits, warnings: &warnings)
        }
        for reader in [envelopes, continuous, signals, document] { warnings += reader.unusedAndDuplicateWarnings() }
        return model
    }

    private static func checkVersion(_ cursor: JSONCursor, warnings: inout [PatternWarning]) throws(PatternLoadError) {
        var version = try ObjectReader(cursor)
        let major = try version.require("major", rule: "required: the data model's major version").finiteNumber()
        guard major == 1 else {
            throw PatternLoadError(path: cursor.child("major"), rule: "version \(JSONWriter.format(major)) is not supported; this reader knows data model v1")
        }
        for key in ["minor", "patch"] { if let part = version.take(key) { _ = try part.finiteNumber() } }
        warnings += version.unusedAndDuplicateWarnings()
    }

    private mutating func readMetadata(_ cursor: JSONCursor, warnings: inout [PatternWarning]) throws(PatternLoadError) {
        var metadata = try ObjectReader(cursor)
        func text(_ key: String) throws(PatternLoadError) -> String? { try metadata.take(key)?.string() }
        project = try text("project")
        author = try text("author")
        description = try text("description")
        _ = try text("editor")
        _ = try text("source")
        if let tags = metadata.take("tags") { for (i, tag) in try tags.array().enumerated() {
            _ = try JSONCursor(value: tag, path: tags.element(i)).string()
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
        guard !items.isEmpty else { throw PatternLoadError(path: cursor.path, rule: "the amplitude envelope is empty") }
        var points: [AmplitudePoint] = []
        points.reserveCapacity(items.count)
        var previous = 0.0
        for (index, item) in items.enumerated() {
            var object = try ObjectReader(JSONCursor(value: item, path: cursor.element(index)))
            let t = try time(try object.require("time", rule: "required: the breakpoint's time in seconds"), after: previous, limits: limits)
            let amplitude = try unit(try object.require("amplitude", rule: "required: the breakpoint's amplitude"), name: "amplitude")
            var point = AmplitudePoint(time: t, amplitude: amplitude)
            if let emphasisCursor = object.take("emphasis"), emphasisCursor.value != .null {
                var emphasis = try ObjectReader(emphasisCursor)
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
        return points
    }

    private static func readFrequency(
        _ cursor: JSONCursor, limits: PatternLimits, warnings: inout [PatternWarning]
    ) throws(PatternLoadError) -> [FrequencyPoint] {
        var points: [FrequencyPoint] = []
        var previous = 0.0
        for (index, item) in try breakpoints(cursor, limits: limits).enumerated() {
            var object = try ObjectReader(JSONCursor(value: item, path: cursor.element(index)))
            let t = try time(try object.require("time", rule: "required: the breakpoint's time in seconds"), after: previous, limits: limits)
            let frequency = try unit(try object.require("frequency", rule: "required: the breakpoint's frequency"), name: "frequency")
            warnings += object.unusedAndDuplicateWarnings()
            points.append(FrequencyPoint(time: t, frequency: frequency))
            previous = t
        }
        return points
    }
}
