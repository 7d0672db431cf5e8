import Foundation
import Measurements

/// `hapbridge run --junit`: JUnit XML as the common reporters read it.
///
/// The structure is Jenkins' junit-10.xsd (jenkinsci/xunit-plugin, the schema the
/// xUnit plugin validates a JUnit file against): <testsuites> of one <testsuite> per
/// script (`file` the script), properties on a suite only, a <testcase> with `name`,
/// `classname`, `time` and at most one <failure>, <error> or <skipped> and its own
/// <system-out>: valid against that schema as published. The script is the suite's
/// `file`, where the schema has it and mikepenz/action-junit-report falls back to.
/// GitLab reads a test's file on its testcase only (`Gitlab::Ci::Parsers::Test::Junit`),
/// which junit-10.xsd does not allow and the xUnit plugin's validation then refuses
/// (skipping the whole file): `testcaseFile` adds it there, for GitLab.
///
/// What each reader shows decides where things go:
/// - the testcase's name carries the device ("bring-up [dut]", `TestCaseName`): GitLab
///   keeps one test per suite, classname and name, so the same test on two devices
///   must differ there;
/// - every figure of every attempt, with its unit, limits, verdict and source, is in
///   the testcase's <system-out> (Jenkins and the GitHub reporters show it for every
///   test); GitLab shows only a failure's, error's or skip's own text, so a <failure>
///   or <error> holds the same lines after its message;
/// - each plot of the test is an attachment line, `[[ATTACHMENT|path]]` on a line of
///   its own (Jenkins' junit-attachments plugin, which wants nothing else on the line;
///   GitLab takes the first one of a failed test, so the failing step's plot goes
///   first);
/// - the suite's properties keep the bench, each device's identity and each
///   measurement as "testcase › limit" for readers of properties.
extension RunReports {
    public static func junit(_ r: RunRecord, plots: RunPlots? = nil, testcaseFile: Bool = false) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let time = { (s: Double) in String(format: "%.3f", s) }
        let names = TestCaseName.all(in: r)
        // junit-10.xsd gives <testsuites> no `skipped`: each suite has its own.
        out += "<testsuites name=\"\(xml(r.bench.name))\" tests=\"\(r.tests.count)\" failures=\"\(r.count(.fail))\" errors=\"\(r.count(.error))\" time=\"\(time(r.seconds))\">\n"
        var suites: [(name: String, file: String, tests: [Int])] = []
        for (i, t) in r.tests.enumerated() {
            if let s = suites.firstIndex(where: { $0.file == t.file && $0.name == t.suite }) { suites[s].tests.append(i) } else { suites.append((t.suite, t.file, [i])) }
        }
        let started = junitTimestamp(r.started)
        for (n, s) in suites.enumerated() {
            let tests = s.tests.map { r.tests[$0] }
            let failures = tests.filter { $0.verdict == .fail }.count, errors = tests.filter { $0.verdict == .error }.count
            let skipped = tests.filter { $0.verdict == .skipped }.count
            out += "  <testsuite name=\"\(xml(s.name))\" id=\"\(n)\" package=\"\(xml(r.bench.name))\" hostname=\"\(xml(r.bench.name))\" file=\"\(xml(s.file))\""
            out += " timestamp=\"\(started)\" tests=\"\(tests.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(time(tests.reduce(0) { $0 + $1.seconds }))\">\n"
            out += "    <properties>\n"
            out += "      <property name=\"bench\" value=\"\(xml(r.bench.name))\"/>\n"
            for d in r.devices {
                out += "      <property name=\"device.\(xml(d.name))\" value=\"\(xml(d.address)) serial \(xml(d.serialNumber ?? "?")) firmware \(xml(d.firmwareVersion ?? "?")) actuator \(xml(d.actuator))\"/>\n"
            }
            for i in s.tests {
                let t = r.tests[i], name = names[i].text
                for m in t.attempts.last?.steps.flatMap(\.measurements) ?? [] {
                    out += "      <property name=\"\(xml("\(name) › \(m.limit.name)"))\" value=\"\(xml(measuredText(m)))\"/>\n"
                }
                for step in t.attempts.last?.steps ?? [] where !step.figures.isEmpty || !step.measurements.isEmpty {
                    out += "      <property name=\"\(xml("\(name) › step \(step.index + 1) \(step.kind.rawValue) source"))\" value=\"\(xml(step.figureSource.text))\"/>\n"
                }
            }
            out += "    </properties>\n"
            for i in s.tests {
                let t = r.tests[i]
                out += "    <testcase name=\"\(xml(names[i].text))\" classname=\"\(xml(s.name))\"\(testcaseFile ? " file=\"\(xml(t.file))\"" : "") time=\"\(time(t.seconds))\">\n"
                let log = junitLog(t, device: r.devices.first { $0.name == t.device })
                let message = t.message ?? t.verdict.rawValue
                let details = text(message + (t.attempts.isEmpty ? "" : "\n\n" + log))
                switch t.verdict {
                case .fail: out += "      <failure message=\"\(xml(message))\" type=\"FAIL\">\(details)</failure>\n"
                case .error: out += "      <error message=\"\(xml(message))\" type=\"ERROR\">\(details)</error>\n"
                case .skipped: out += "      <skipped message=\"\(xml(message))\"/>\n"
                case .pass, .marginal: break
                }
                let attachments = attachmentLines(t, plots: plots?.plots(testIndex: i) ?? [:])
                if !t.attempts.isEmpty || !attachments.isEmpty {
                    out += "      <system-out>\(text(([log] + attachments).joined(separator: "\n")))</system-out>\n"
                }
                out += "    </testcase>\n"
            }
            out += "    <system-out></system-out>\n    <system-err></system-err>\n"
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// A test's output: which device and script, then every attempt, each step with its
    /// verdict and every figure it measured (value and unit, each limit on it and the
    /// verdict, the source), and each limit whose figure was not measured, with why.
    static func junitLog(_ t: TestResult, device: DeviceHealth?) -> String {
        let identity = device.map { "\($0.address), serial \($0.serialNumber ?? "?"), actuator \($0.actuator)" } ?? "?"
        var lines = ["\(t.suite) › \(t.name) on \(t.device) (\(identity))", "script: \(t.file)"]
        for a in t.attempts {
            lines.append("attempt \(a.number) (\(a.reason.rawValue)): \(a.verdict.rawValue)\(a.message.map { " — \($0)" } ?? "")")
            for step in a.steps {
                lines.append("  step \(step.index + 1) \(step.label): \(step.verdict.rawValue)\(step.message.map { " — \($0)" } ?? "")")
                let source = "source: \(step.figureSource.text)"
                for f in step.figures {
                    let value = "\(f.unit.format(f.value))\(f.unit.suffix)"
                    let limits = step.measurements.filter { $0.value != nil && $0.limit.figure.measurementName(in: step.kind) == f.name }
                    if limits.isEmpty { lines.append("    \(f.name) = \(value), no limit, \(source)") }
                    for m in limits { lines.append("    \(f.name) = \(value), limit \(limitText(m.limit)), \(m.verdict.rawValue), \(source)") }
                }
                for m in step.measurements where m.value == nil {
                    lines.append("    \(m.limit.name) not measured (\(m.note ?? "?")), limit \(limitText(m.limit)), \(m.verdict.rawValue), \(source)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// "rise time: x ≤ 20 ms, marginal 2 ms".
    static func limitText(_ l: Limit) -> String {
        "\(l.name): \(l.text)" + (l.marginal.map { ", marginal \(Limit.format($0))\(l.unit.suffix)" } ?? "")
    }

    /// `[[ATTACHMENT|path]]` for each plot of the test's last attempt, the plot of the
    /// step that gave the test its verdict first (GitLab shows a failed test's first).
    static func attachmentLines(_ t: TestResult, plots: [Int: String]) -> [String] {
        let steps = t.attempts.last?.steps ?? []
        let first = steps.first { $0.verdict == t.verdict && plots[$0.index] != nil }?.index
        let order = (first.map { [$0] } ?? []) + steps.map(\.index).filter { $0 != first }
        return order.compactMap { plots[$0] }.map { "[[ATTACHMENT|\($0)]]" }
    }

    /// "10.910 ms [x ≤ 20 ms] PASS".
    static func measuredText(_ m: MeasuredResult) -> String {
        let v = m.value.map { "\(m.limit.unit.format($0))\(m.limit.unit.suffix)" } ?? "not measured (\(m.note ?? "?"))"
        return "\(v) [\(m.limit.text)] \(m.verdict.rawValue)"
    }

    /// When the run started, ISO 8601 in UTC without a zone, as JUnit's timestamps are.
    static func junitTimestamp(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return f.string(from: date)
    }

    /// Text for an XML attribute: the five entities escaped, line feeds and tabs as
    /// character references (an attribute's own would be read as spaces), and
    /// characters XML 1.0 cannot carry replaced.
    static func xml(_ s: String) -> String { escaped(s, lineBreaks: true) }

    /// Text for an element's content: the same, with line feeds, tabs and quotes kept
    /// as they are (only `&`, `<` and `>` need escaping there).
    static func text(_ s: String) -> String { escaped(s, lineBreaks: false) }

    private static func escaped(_ s: String, lineBreaks: Bool) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += lineBreaks ? "&quot;" : "\""
            case "'": out += lineBreaks ? "&apos;" : "'"
            case "\n": out += lineBreaks ? "&#10;" : "\n"
            case "\t": out += lineBreaks ? "&#9;" : "\t"
            default: out.unicodeScalars.append(u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF ? "?" : u)
            }
        }
        return out
    }
}
