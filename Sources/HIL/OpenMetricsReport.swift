import Measurements

/// `hapbridge run --metrics`: every figure of the run's record as OpenMetrics text
/// (specification/OpenMetrics.md), the format GitLab's metrics report
/// (`artifacts:reports:metrics`), Prometheus and pytest-embedded read.
///
/// - One gauge family per figure a script can name (`hapbridge_hil_rise_seconds`,
///   `hapbridge_hil_f0_hertz`, `hapbridge_hil_q`; `metricStem`), its unit in base units
///   (`OpenMetricUnit`) with `# TYPE`, `# UNIT` and `# HELP`.
/// - One sample per figure of every attempt of every test, labelled `bench`, `device`
///   (the bench's name for it), `serial`, `actuator`, `suite`, `test` (`TestCaseName`:
///   a test met twice on one device is told apart), `attempt`, `step` ("1 measure
///   ios.impact.heavy"), `figure` (the record's name for it) and `source`
///   (`FigureSource`): one label set per figure, as a family must have, and the same
///   test on several devices gives several samples.
/// - Beside each figure a script limits: `…_limit_<unit>` with a `limit` (its name) and
///   `bound` ("low", "high", "marginal") label, and `…_verdict`, one sample per verdict
///   in a `verdict` label (1 for the one it got). A limit whose figure was not measured
///   has its limits and verdict (ERROR) and no value sample.
/// - `hapbridge_hil_test_verdict`: each test's verdict, the same way.
///
/// Nothing in a label changes from run to run but what was measured, so GitLab, which
/// keys a metric by its whole line before the value (`Gitlab::Ci::Parsers::Metrics::
/// Generic`: the line shell-split), compares the same figure across pipelines.
extension RunReports {
    public static func openMetrics(_ r: RunRecord) -> String {
        var families = MetricFamilies()
        let names = TestCaseName.all(in: r)
        let verdicts = Verdict.allCases.map(\.rawValue)
        for (i, t) in r.tests.enumerated() {
            let device = r.devices.first { $0.name == t.device }
            let testLabels: [(String, String)] = [
                ("bench", r.bench.name), ("device", t.device), ("serial", device?.serialNumber ?? ""), ("actuator", device?.actuator ?? ""),
                ("suite", t.suite), ("test", names[i].test),
            ]
            families.enumeration(
                "hapbridge_hil_test_verdict", help: "hapbridge run: each test's verdict, 1 for the one it got", labels: testLabels, label: "verdict", states: verdicts,
                on: t.verdict.rawValue)
            for a in t.attempts {
                for step in a.steps {
                    let source = step.figureSource.label
                    let stepLabels = testLabels + [("attempt", "\(a.number)"), ("step", "\(step.index + 1) \(step.label)")]
                    for f in step.figures {
                        let unit = OpenMetricUnit(f.unit), stem = metricStem(f.name)
                        families.gauge(
                            family(stem, unit), unit: unit.name, help: "hapbridge run: \(stem), each figure named in its figure label as the record names it (recorded in \(f.unit.rawValue))",
                            labels: stepLabels + [("figure", f.name), ("source", source)], value: unit.value(f.value))
                    }
                    var seen: [String: Int] = [:]
                    for m in step.measurements {
                        let figure = m.limit.figure.measurementName(in: step.kind)
                        let unit = OpenMetricUnit(m.limit.unit), stem = metricStem(figure)
                        // Two limits of one name on one figure stay two label sets.
                        let n = (seen["\(figure)\u{0}\(m.limit.name)"] ?? 0) + 1
                        seen["\(figure)\u{0}\(m.limit.name)"] = n
                        let labels = stepLabels + [("figure", figure), ("source", source), ("limit", n == 1 ? m.limit.name : "\(m.limit.name) (\(n))")]
                        for (bound, value) in [("low", m.limit.low), ("high", m.limit.high), ("marginal", m.limit.marginal)] {
                            guard let value else { continue }
                            families.gauge(
                                family("\(stem)_limit", unit), unit: unit.name, help: "hapbridge run: a script's limits on \(stem), by limit and bound",
                                labels: labels + [("bound", bound)], value: unit.value(value))
                        }
                        families.enumeration(
                            "hapbridge_hil_\(stem)_verdict", help: "hapbridge run: the verdict on \(stem) against each limit, 1 for the one it got", labels: labels,
                            label: "verdict", states: verdicts, on: m.verdict.rawValue)
                    }
                }
            }
        }
        return families.text
    }

    /// "hapbridge_hil_rise_seconds": the stem and the unit's name after it.
    static func family(_ stem: String, _ unit: OpenMetricUnit) -> String {
        "hapbridge_hil_\(stem)" + (unit.name.map { "_\($0)" } ?? "")
    }

    /// The family stem of a figure the record names: the id a script's limits use
    /// (`Figure`, "pass-rate" as pass_rate; f0 on diagnose and on sweep alike, told
    /// apart by the `figure` label), the other steps' figures by what they are, and any
    /// other name as its letters and digits (so a figure added later is never dropped).
    static func metricStem(_ name: String) -> String {
        if let stem = knownStems[name] { return stem }
        let words = name.lowercased().unicodeScalars.split { !(("a"..."z").contains($0) || ("0"..."9").contains($0)) }
        return "figure_" + words.map { String(String.UnicodeScalarView($0)) }.joined(separator: "_")
    }

    static let knownStems: [String: String] = {
        var stems: [String: String] = [
            StepExecution.replugFigure: "replug", StepFlash.writtenFigure: "flash_written", StepFlash.verifiedFigure: "flash_verified",
        ]
        for figure in Figure.allCases {
            for kind in figure.steps { stems[figure.measurementName(in: kind)] = figure.rawValue.replacingOccurrences(of: "-", with: "_") }
        }
        return stems
    }()
}

/// Families gathered in the order first met, each written whole (OpenMetrics forbids
/// interleaving them), then `# EOF`.
struct MetricFamilies {
    private struct Family {
        var type: String
        var unit: String?
        var help: String
        var samples: [String] = []
    }
    private var order: [String] = []
    private var families: [String: Family] = [:]

    mutating func gauge(_ name: String, unit: String?, help: String, labels: [(String, String)], value: Double) {
        add(name, type: "gauge", unit: unit, help: help, sample: "\(name)\(Self.labels(labels)) \(Self.number(value))")
    }

    /// An enumeration: one gauge sample per state, the state in the label `label`, 1
    /// for `on` and 0 for the others (kube-state-metrics' `phase`). OpenMetrics has a
    /// stateset type for this, but the Prometheus text format's parser (prometheus/
    /// common expfmt `TextParser.readingType`, which node exporter's textfile collector
    /// uses) knows no such `# TYPE` and refuses the whole file; a gauge is read by both.
    mutating func enumeration(_ name: String, help: String, labels: [(String, String)], label: String, states: [String], on: String) {
        for state in states {
            add(name, type: "gauge", unit: nil, help: help, sample: "\(name)\(Self.labels(labels + [(label, state)])) \(state == on ? 1 : 0)")
        }
    }

    private mutating func add(_ name: String, type: String, unit: String?, help: String, sample: String) {
        if families[name] == nil {
            order.append(name)
            families[name] = Family(type: type, unit: unit, help: help)
        }
        families[name]?.samples.append(sample)
    }

    var text: String {
        var out = ""
        for name in order {
            guard let f = families[name] else { continue }
            out += "# TYPE \(name) \(f.type)\n"
            if let unit = f.unit { out += "# UNIT \(name) \(unit)\n" }
            out += "# HELP \(name) \(Self.escaped(f.help))\n"
            for s in f.samples { out += s + "\n" }
        }
        return out + "# EOF\n"
    }

    /// `{a="x",b="y"}`.
    static func labels(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// A label value's or HELP's escaping (the ABNF's escaped-string): backslash, double
    /// quote and line feed.
    static func escaped(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A sample's value: Swift's shortest representation that reads back as the same
    /// double ("0.0109", "175.0", "1e-05": the ABNF's realnumber), NaN and ±Inf as the
    /// format spells them.
    static func number(_ x: Double) -> String {
        if x.isNaN { return "NaN" }
        if x.isInfinite { return x > 0 ? "+Inf" : "-Inf" }
        return "\(x)"
    }
}
