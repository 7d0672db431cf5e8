import Bench
import Foundation
import JSON
import Measurements

/// The run's record as JSON (`hapbridge run --json`) and as JUnit XML (`--junit`).
public enum RunReports {
    public static let schema = "hapbridge-hil-run/1"

    public static func json(_ r: RunRecord) -> String {
        func num(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
        func str(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        let bench = JSONValue.fields([
            "name": .string(r.bench.name), "file": .string(r.bench.file),
            "features": .array(r.bench.features.sorted().map { .string($0) }),
            "fixture": .fields(["sledMassGrams": num(r.bench.fixture.sledMassGrams), "mounting": str(r.bench.fixture.mounting)]),
        ])
        let devices = JSONValue.array(
            r.devices.map { d in
                .fields([
                    "name": .string(d.name), "address": .string(d.address), "actuator": .string(d.actuator), "serialNumber": str(d.serialNumber),
                    "firmwareVersion": str(d.firmwareVersion), "protocolVersion": str(d.protocolVersion), "chip": str(d.chip),
                    "supplyVolts": num(d.supplyVolts), "healthy": .bool(d.problem == nil), "problem": str(d.problem),
                ])
            })
        let tests = JSONValue.array(
            r.tests.map { t in
                .fields([
                    "suite": .string(t.suite), "file": .string(t.file), "name": .string(t.name), "device": .string(t.device),
                    "verdict": .string(t.verdict.rawValue), "message": str(t.message), "seconds": .number(t.seconds),
                    "attempts": .array(
                        t.attempts.map { a in
                            .fields([
                                "number": .number(Double(a.number)), "reason": .string(a.reason.rawValue), "verdict": .string(a.verdict.rawValue),
                                "message": str(a.message), "seconds": .number(a.seconds),
                                "steps": .array(
                                    a.steps.map { s in
                                        .fields([
                                            "index": .number(Double(s.index)), "step": .string(s.kind.rawValue), "label": .string(s.label),
                                            "verdict": .string(s.verdict.rawValue), "message": str(s.message), "seconds": .number(s.seconds),
                                            "measurements": .array(s.measurements.map { measurement($0) }),
                                            "figures": .array(s.figures.map { .fields(["name": .string($0.name), "unit": .string($0.unit.rawValue), "value": .number($0.value)]) }),
                                            // Where the step's acceleration figures came from: sensor or model.
                                            "acceleration": s.accelerationProvenance.map { .object($0.jsonFields) } ?? .null,
                                        ])
                                    }),
                            ])
                        }),
                ])
            })
        let counts = JSONValue.object(Verdict.allCases.map { (key: $0.rawValue, value: JSONValue.number(Double(r.count($0)))) })
        return JSONWriter.string(
            .fields([
                "schema": .string(schema), "verdict": .string(r.verdict.rawValue), "aborted": str(r.aborted), "interrupted": str(r.interruption),
                "started": .string(timestamp(r.started)), "seconds": .number(r.seconds),
                "counts": counts, "bench": bench, "devices": devices, "tests": tests,
            ])) + "\n"
    }

    /// "2025-06-24T10:03:12.345Z".
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func measurement(_ m: MeasuredResult) -> JSONValue {
        .fields([
            "name": .string(m.limit.name), "figure": .string(m.limit.figure.rawValue), "unit": .string(m.limit.unit.rawValue),
            "value": m.value.map { .number($0) } ?? .null, "low": m.limit.low.map { .number($0) } ?? .null,
            "high": m.limit.high.map { .number($0) } ?? .null, "marginal": m.limit.marginal.map { .number($0) } ?? .null,
            "verdict": .string(m.verdict.rawValue), "note": m.note.map { .string($0) } ?? .null,
        ])
    }

    /// JUnit XML as the common schema (Jenkins' / Ant's junit.xsd) has it: one
    /// <testsuite> per script, one <testcase> per test. That schema gives properties to
    /// a suite only, so each test's measurements (of its last attempt) are the suite's
    /// properties named "test › measurement" (value with unit, limits, verdict); FAIL
    /// is <failure> and ERROR <error> with the measured value in the message; SKIP is
    /// <skipped>; every attempt, with its measurements, in the test's <system-out>.
    public static func junit(_ r: RunRecord) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let time = { (s: Double) in String(format: "%.3f", s) }
        out += "<testsuites name=\"\(xml(r.bench.name))\" tests=\"\(r.tests.count)\" failures=\"\(r.count(.fail))\" errors=\"\(r.count(.error))\" skipped=\"\(r.count(.skipped))\" time=\"\(time(r.seconds))\">\n"
        var suites: [(name: String, file: String, tests: [TestResult])] = []
        for t in r.tests {
            if let i = suites.firstIndex(where: { $0.file == t.file && $0.name == t.suite }) { suites[i].tests.append(t) } else { suites.append((t.suite, t.file, [t])) }
        }
        for (i, s) in suites.enumerated() {
            let failures = s.tests.filter { $0.verdict == .fail }.count, errors = s.tests.filter { $0.verdict == .error }.count
            let skipped = s.tests.filter { $0.verdict == .skipped }.count
            out += "  <testsuite name=\"\(xml(s.name))\" id=\"\(i)\" package=\"\(xml(r.bench.name))\" hostname=\"\(xml(r.bench.name))\" timestamp=\"\(timestamp)\" tests=\"\(s.tests.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(time(s.tests.reduce(0) { $0 + $1.seconds }))\">\n"
            out += "    <properties>\n"
            out += "      <property name=\"bench\" value=\"\(xml(r.bench.name))\"/>\n"
            for d in r.devices {
                out += "      <property name=\"device.\(xml(d.name))\" value=\"\(xml(d.address)) serial \(xml(d.serialNumber ?? "?")) firmware \(xml(d.firmwareVersion ?? "?"))\"/>\n"
            }
            // The measurements, as "test › name": junit.xsd has properties on a suite only.
            for t in s.tests {
                for m in t.attempts.last?.steps.flatMap(\.measurements) ?? [] {
                    out += "      <property name=\"\(xml("\(t.name) › \(m.limit.name)"))\" value=\"\(xml(measuredText(m)))\"/>\n"
                }
                // …and where each measuring step's acceleration came from (sensor or model).
                for step in t.attempts.last?.steps ?? [] {
                    guard let p = step.accelerationProvenance else { continue }
                    out += "      <property name=\"\(xml("\(t.name) › step \(step.index + 1) \(step.kind.rawValue) source"))\" value=\"\(xml(p.text))\"/>\n"
                }
            }
            out += "    </properties>\n"
            for t in s.tests {
                out += "    <testcase name=\"\(xml(t.name))\" classname=\"\(xml(s.name))\" time=\"\(time(t.seconds))\">\n"
                let message = xml(t.message ?? t.verdict.rawValue)
                switch t.verdict {
                case .fail: out += "      <failure message=\"\(message)\" type=\"FAIL\">\(message)</failure>\n"
                case .error: out += "      <error message=\"\(message)\" type=\"ERROR\">\(message)</error>\n"
                case .skipped: out += "      <skipped message=\"\(message)\"/>\n"
                case .pass, .marginal: break
                }
                let log = t.attempts.map { a in
                    "attempt \(a.number) (\(a.reason.rawValue)): \(a.verdict.rawValue)\n"
                        + a.steps.map { step in
                            "  step \(step.index + 1) \(step.label): \(step.verdict.rawValue)\(step.message.map { " — \($0)" } ?? "")"
                                + step.measurements.map { "\n    \($0.limit.name) = \(measuredText($0))" }.joined()
                        }.joined(separator: "\n")
                }.joined(separator: "\n")
                if !log.isEmpty { out += "      <system-out>\(xml(log))</system-out>\n" }
                out += "    </testcase>\n"
            }
            out += "    <system-out></system-out>\n    <system-err></system-err>\n"
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// "10.910 ms [x ≤ 20 ms] PASS".
    static func measuredText(_ m: MeasuredResult) -> String {
        let v = m.value.map { "\(m.limit.unit.format($0))\(m.limit.unit.suffix)" } ?? "not measured (\(m.note ?? "?"))"
        return "\(v) [\(m.limit.text)] \(m.verdict.rawValue)"
    }

    /// ISO 8601 without a zone, as junit.xsd's timestamp wants.
    static var timestamp: String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return f.string(from: Date())
    }

    /// Text for an XML attribute or element: the five entities escaped, and control
    /// characters XML 1.0 cannot carry replaced.
    static func xml(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            default: out.unicodeScalars.append(u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF ? "?" : u)
            }
        }
        return out
    }
}

extension JSONValue {
    /// An object with its keys in the order written.
    fileprivate static func fields(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue { .object(pairs.map { (key: $0.key, value: $0.value) }) }
}

extension StepResult {
    /// Where a play, measure or sweep step's acceleration came from; nil for a step
    /// that recorded none.
    public var accelerationProvenance: AccelerationProvenance? { trace?.provenance ?? sweep?.provenance }
}
