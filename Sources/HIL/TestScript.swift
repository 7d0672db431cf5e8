import Bench
import Measurements

/// What one step of a test does.
public enum StepKind: String, Sendable, CaseIterable {
    case calibrate, diagnose, play, measure, compare, sweep, wait, flash, unplug, replug
}

/// One measurement's limits: the figure, the unit the script expects (checked against
/// the figure's, so a limit in the wrong unit is caught before the run), low and/or
/// high, and a marginal band inside them.
public struct Limit: Sendable, Equatable {
    public var name: String
    public var figure: Figure
    public var unit: MeasurementUnit
    public var low: Double?
    public var high: Double?
    /// A value within this distance of a limit, still inside it, is MARGINAL (a pass
    /// that says the part is close to failing). In the figure's unit.
    public var marginal: Double?

    public static let keys = ["figure", "name", "unit", "low", "high", "marginal"]

    public init(name: String, figure: Figure, unit: MeasurementUnit, low: Double?, high: Double?, marginal: Double?) {
        self.name = name
        self.figure = figure
        self.unit = unit
        self.low = low
        self.high = high
        self.marginal = marginal
    }

    /// A limit on `figure` in its own unit, named as the step measuring it names it
    /// (`Limit(.rise, high: 20, marginal: 2)`): what `import HapbridgeTesting` writes.
    public init(_ figure: Figure, low: Double? = nil, high: Double? = nil, marginal: Double? = nil, name: String? = nil) {
        self.init(name: name ?? figure.measurementName, figure: figure, unit: figure.unit, low: low, high: high, marginal: marginal)
    }
}

/// One step: what it does, its own timeout, the limits on what it measures.
public struct Step: Sendable {
    public enum Action: Sendable, Equatable {
        /// Auto-calibration `runs` times (pass rate and register spread).
        case calibrate(runs: Int)
        /// Identity, supply, open/short diagnostic, faults; f0 on an LRA.
        case diagnose
        /// A pattern file or a built-in haptic name, played to its end.
        case play(String)
        /// The same, with point 4's measurements of what the actuator did.
        case measure(String)
        /// The pattern played and measured, its trace compared with a golden reference
        /// (`measure --save-trace`, relative to the script) against `limits`
        /// (`TraceComparison`; docs/golden-traces.md).
        case compare(reference: String, pattern: String, limits: TraceLimits)
        /// The open-loop frequency response of an LRA (f0, Q, the −3 dB bandwidth).
        case sweep(FrequencySweep.Options)
        case wait(milliseconds: Double)
        /// Program a bridge board (`usb:…`) as `hapbridge flash --device` does: the image
        /// (relative to the script), or the firmware this hapbridge carries when nil.
        case flash(image: String?)
        case unplug
        case replug
    }

    public var action: Action
    public var kind: StepKind
    /// Wall-clock limit, s (nil: the test's).
    public var timeoutSeconds: Double?
    public var limits: [Limit]
    public var line: Int?
    /// The line of the action's value (`play: x`'s `x`), for the load-time checks' errors.
    var valueLine: Int?

    public static let keys = StepKind.allCases.map(\.rawValue) + ["timeout", "limits"]
    /// `- sweep: {from: Hz, to: Hz, level: fraction, settle: ms, window: ms}`, all optional
    /// (`hapbridge sweep`'s options and defaults).
    public static let sweepKeys = ["from", "to", "level", "settle", "window"]
    /// `- compare: {reference: FILE, pattern: PATTERN, onset: ms, envelope: dB, peak: dB}`:
    /// the limits optional (`TraceLimits.default`), as `hapbridge diff --limits`.
    public static let compareKeys = ["reference", "pattern", "onset", "envelope", "peak"]
    /// `- flash:` (the carried firmware), `- flash: PATH` or `- flash: {image: PATH}`.
    public static let flashKeys = ["image"]

    public init(action: Action, kind: StepKind, timeoutSeconds: Double? = nil, limits: [Limit] = [], line: Int? = nil) {
        self.action = action
        self.kind = kind
        self.timeoutSeconds = timeoutSeconds
        self.limits = limits
        self.line = line
    }
}

/// One test of a script: the steps, the features it needs, the device it runs on, and
/// how it is tried again (retries on ERROR, repeats on FAIL — kept apart: an error says
/// nothing about the part, a FAIL may be noise worth measuring again).
public struct TestCase: Sendable {
    public var name: String
    /// A bench device's name, or a tag: the test runs on every device carrying it.
    public var device: String?
    public var requires: [String]
    public var timeoutSeconds: Double
    /// Attempts after an ERROR (the device or the run went wrong).
    public var retries: Int
    /// Attempts after a FAIL (a measurement out of limits).
    public var repeats: Int
    public var steps: [Step]
    public var line: Int?

    public static let keys = ["name", "device", "requires", "timeout", "retries", "repeats", "steps"]
}

/// A test script: a suite of tests from one YAML file.
public struct TestScript: Sendable {
    public var suite: String
    public var tests: [TestCase]
    public var file: String

    public static let keys = ["suite", "tests"]

    /// Per-test default timeout, s.
    public static let defaultTestTimeoutSeconds = 120.0

    public static func parse(_ text: String, file: String, bench: BenchFile? = nil) throws(ScriptError) -> TestScript {
        let root = try YAMLNode.root(text, file: file)
        let m = try root.mapping(allowed: keys)
        let suite = try m.required("suite").string()
        var tests: [TestCase] = []
        let list = try m.required("tests").sequence()
        guard !list.isEmpty else { throw m["tests"]!.error("must hold at least one test") }
        for item in list {
            let t = try item.mapping(allowed: TestCase.keys)
            let name = try t.required("name").string()
            if tests.contains(where: { $0.name == name }) { throw t["name"]!.error("test \(YAMLNode.echo(name)) is named twice") }
            let device = try t["device"]?.string()
            if let device, let bench, bench.devices(matching: device).isEmpty {
                let tags = Set(bench.devices.flatMap(\.tags)).sorted()
                throw t["device"]!.error(
                    "the bench \(bench.file) has no device \(YAMLNode.echo(device)) and no device tagged so (it has \(bench.devices.map(\.name).joined(separator: ", "))"
                        + (tags.isEmpty ? ")" : "; tags \(tags.joined(separator: ", ")))"))
            }
            var steps: [Step] = []
            let stepList = try t.required("steps").sequence()
            guard !stepList.isEmpty else { throw t["steps"]!.error("must hold at least one step") }
            for s in stepList { steps.append(try parseStep(s)) }
            tests.append(
                TestCase(
                    name: name, device: device, requires: try t["requires"]?.strings() ?? [],
                    timeoutSeconds: try t["timeout"]?.seconds() ?? defaultTestTimeoutSeconds,
                    retries: try t["retries"]?.count(in: 0...10) ?? 0, repeats: try t["repeats"]?.count(in: 0...10) ?? 0,
                    steps: steps, line: item.line))
        }
        return TestScript(suite: suite, tests: tests, file: file)
    }

    static func parseStep(_ node: YAMLNode) throws(ScriptError) -> Step {
        let m = try node.mapping(allowed: Step.keys)
        let actions = StepKind.allCases.filter { m[$0.rawValue] != nil }
        guard actions.count == 1, let kind = actions.first, let value = m[kind.rawValue] else {
            throw node.error(
                actions.isEmpty
                    ? "a step needs one of \(StepKind.allCases.map(\.rawValue).joined(separator: ", "))"
                    : "a step does one thing, not \(actions.map(\.rawValue).joined(separator: " and "))")
        }
        let action: Step.Action
        switch kind {
        case .calibrate:
            if isEmpty(value) { action = .calibrate(runs: 1) } else {
                let c = try value.mapping(allowed: ["runs"])
                action = .calibrate(runs: try c["runs"]?.count(in: 1...1000) ?? 1)
            }
        case .diagnose, .unplug, .replug:
            guard isEmpty(value) else { throw value.error("takes no value (write `- \(kind.rawValue):`)") }
            action = kind == .diagnose ? .diagnose : kind == .unplug ? .unplug : .replug
        case .play, .measure:
            let pattern = try value.string()
            guard !pattern.isEmpty else { throw value.error("must name a pattern file or a built-in haptic") }
            action = kind == .play ? .play(pattern) : .measure(pattern)
        case .wait:
            let ms = try value.number()
            guard (0...3_600_000).contains(ms) else { throw value.error("must be 0...3600000 ms, not \(ms)") }
            action = .wait(milliseconds: ms)
        case .compare:
            action = try parseCompare(value)
        case .sweep:
            action = .sweep(try parseSweep(value))
        case .flash:
            action = .flash(image: try parseFlash(value))
        }
        var limits: [Limit] = []
        if let l = m["limits"] {
            for item in try l.sequence() {
                let lm = try item.mapping(allowed: Limit.keys)
                let figure = try lm.required("figure").oneOf(Figure.self)
                guard figure.steps.contains(kind) else {
                    let by = figure.steps.map(\.rawValue).joined(separator: " or ")
                    throw lm["figure"]!.error("\(figure.rawValue) is measured by a \(by) step, not by \(kind.rawValue)")
                }
                let unitNode = try lm.required("unit")
                let unit = try unitNode.oneOf(MeasurementUnit.self)
                guard unit == figure.unit else { throw unitNode.error("\(figure.rawValue) is in \(figure.unit.rawValue), not \(unit.rawValue)") }
                let low = try lm["low"]?.number(), high = try lm["high"]?.number()
                guard low != nil || high != nil else { throw item.error("a limit needs low, high or both") }
                if let low, let high, low > high { throw lm["low"]!.error("low \(low) is above high \(high)") }
                let marginal = try lm["marginal"]?.number()
                if let marginal, marginal < 0 { throw lm["marginal"]!.error("must be 0 or more, not \(marginal)") }
                limits.append(
                    Limit(name: try lm["name"]?.string() ?? figure.measurementName(in: kind), figure: figure, unit: unit, low: low, high: high, marginal: marginal))
            }
        }
        var step = Step(action: action, kind: kind, timeoutSeconds: try m["timeout"]?.seconds(), limits: limits, line: node.line)
        step.valueLine = value.line
        return step
    }

    /// `- sweep:` (the defaults) or its options, checked as `hapbridge sweep` checks them.
    static func parseSweep(_ value: YAMLNode) throws(ScriptError) -> FrequencySweep.Options {
        var o = FrequencySweep.Options()
        guard !isEmpty(value) else { return o }
        let m = try value.mapping(allowed: Step.sweepKeys)
        for (key, keyPath) in [("from", \FrequencySweep.Options.fromHz), ("to", \.toHz)] {
            guard let n = m[key] else { continue }
            let hz = try n.positiveNumber()
            guard FrequencySweep.reachableHz.contains(hz) else { throw n.error("\(Limit.format(hz)) Hz is out of reach: \(FrequencySweep.reachText)") }
            o[keyPath: keyPath] = hz
        }
        if let from = o.fromHz, let to = o.toHz, from >= to { throw m["from"]!.error("\(Limit.format(from)) Hz is not below to: \(Limit.format(to)) Hz") }
        if let l = m["level"] {
            o.level = try l.number()
            guard o.level > 0, o.level <= 1 else { throw l.error("a fraction of the rated voltage, above 0 and at most 1, not \(o.level)") }
        }
        for (key, keyPath) in [("settle", \FrequencySweep.Options.settleMicroseconds), ("window", \.windowMicroseconds)] {
            guard let n = m[key] else { continue }
            let ms = try n.number()
            guard ms >= 1, ms <= 10_000 else { throw n.error("milliseconds, 1...10000, not \(ms)") }
            o[keyPath: keyPath] = UInt64((ms * 1000).rounded())
        }
        return o
    }

    /// `- compare: {reference: FILE, pattern: PATTERN, …limits}`.
    static func parseCompare(_ value: YAMLNode) throws(ScriptError) -> Step.Action {
        let m = try value.mapping(allowed: Step.compareKeys)
        let reference = try m.required("reference").string()
        guard !reference.isEmpty else { throw m["reference"]!.error("must name a trace file saved by `hapbridge measure --save-trace`") }
        let pattern = try m.required("pattern").string()
        guard !pattern.isEmpty else { throw m["pattern"]!.error("must name a pattern file or a built-in haptic") }
        var limits = TraceLimits.default
        for (key, keyPath) in [("onset", \TraceLimits.onsetMilliseconds), ("envelope", \.envelopeDB), ("peak", \.peakDB)] {
            guard let n = m[key] else { continue }
            let limit = try n.number()
            guard limit >= 0, limit <= 1e6 else { throw n.error("must be 0...1000000 (\(key == "onset" ? "ms" : "dB")), not \(limit)") }
            limits[keyPath: keyPath] = limit
        }
        return .compare(reference: reference, pattern: pattern, limits: limits)
    }

    /// The image a flash step names, or nil for the firmware hapbridge carries.
    static func parseFlash(_ value: YAMLNode) throws(ScriptError) -> String? {
        guard !isEmpty(value) else { return nil }
        let image: YAMLNode
        if case .mapping = value.node.content { image = try value.mapping(allowed: Step.flashKeys).required("image") } else { image = value }
        let path = try image.string()
        guard !path.isEmpty else { throw image.error("must name an Intel HEX or ELF file (or leave flash empty for the firmware hapbridge carries)") }
        return path
    }

    /// `- diagnose:` (null) or `- diagnose: {}`.
    static func isEmpty(_ node: YAMLNode) -> Bool {
        switch node.node.content {
        case .scalar(let s): s.isNull || s.text.isEmpty
        case .mapping(let m): m.isEmpty
        case .sequence: false
        }
    }
}
