import Foundation
import FoundationXML
import Testing

/// `hapbridge run --junit` and `--metrics` as CI reads them, through the built
/// executable on Examples/hil's simulated bench: the JUnit XML against Jenkins'
/// junit-10.xsd (xmllint) and as GitLab keys and shows it, the OpenMetrics text through
/// prometheus_client's own parser (Debian's python3-prometheus-client), each checked
/// against the JSON record of the same run.
@Suite("hapbridge run: JUnit and OpenMetrics for CI")
struct RunCIReportsTests {
    static let bench = Repo.path("Examples/hil/bench-sim.yaml")
    static let suite = Repo.path("Examples/hil/suite.yaml")
    static let python = "/usr/bin/python3"

    struct Outputs {
        var run: ProcessRun
        var dir: String
        var record: [String: Any]
        var junit: XMLDocument
    }

    /// The example suite with every output; `plots` relative to the run's directory, as
    /// a CI job gives it (GitLab finds an attachment relative to the project directory).
    func runExamples(extra: [String] = []) throws -> Outputs {
        let dir = try temporaryDirectory()
        let run = try runProcess(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir, Repo.hapbridge, "run", Self.bench, Self.suite, "--json", "run.json", "--junit", "run.xml",
                "--metrics", "metrics.txt", "--plots", "plots", "--lock-dir", "locks",
            ] + extra)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/run.json")))
        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: "\(dir)/run.xml"))
        return Outputs(run: run, dir: dir, record: try #require(json as? [String: Any]), junit: xml)
    }

    static func cases(_ doc: XMLDocument) -> [XMLElement] {
        (doc.rootElement()?.elements(forName: "testsuite") ?? []).flatMap { $0.elements(forName: "testcase") }
    }

    static func attribute(_ e: XMLElement, _ name: String) -> String { e.attribute(forName: name)?.stringValue ?? "" }

    // MARK: JUnit

    @Test("Every testcase is named for its test and its device, once in the file; the script is its suite's file=, and each testcase's only with --junit-testcase-file")
    func junitNames() throws {
        let o = try runExamples()
        #expect(o.run.status == 9, "\(o.run.stderr)")
        let cases = Self.cases(o.junit)
        #expect(cases.count == 7)
        let keys = cases.map { "\(Self.attribute($0, "classname"))\u{0}\(Self.attribute($0, "name"))" }
        #expect(Set(keys).count == cases.count, "GitLab keeps one testcase per suite, classname and name: \(keys)")
        for c in cases {
            #expect(Self.attribute(c, "name").hasSuffix(" [dut]"), "\(Self.attribute(c, "name"))")
            #expect(c.attribute(forName: "file") == nil, "junit-10.xsd has no file on a testcase")
            #expect(Self.attribute(c, "classname") == "hil-example")
        }
        #expect(cases.contains { Self.attribute($0, "name") == "rise time too tight [dut]" })
        #expect(o.junit.rootElement()?.elements(forName: "testsuite").first.map { Self.attribute($0, "file") } == Self.suite)
        let gitlab = try runExamples(extra: ["--junit-testcase-file"])
        #expect(Self.cases(gitlab.junit).count == 7 && Self.cases(gitlab.junit).allSatisfy { Self.attribute($0, "file") == Self.suite })
        let alone = try runProcess(Repo.hapbridge, ["run", Self.bench, Self.suite, "--junit-testcase-file", "--lock-dir", try temporaryDirectory()])
        #expect(alone.status == 2 && alone.stderr.contains("--junit-testcase-file") && alone.stderr.contains("--junit FILE"), "\(alone.stderr)")
    }

    @Test("Each testcase's system-out lists every figure of every attempt: value, unit, each limit, the verdict and the source")
    func junitFigures() throws {
        let o = try runExamples()
        let cases = Dictionary(Self.cases(o.junit).map { (Self.attribute($0, "name"), $0) }, uniquingKeysWith: { a, _ in a })
        var listed = 0
        for t in o.record["tests"] as? [[String: Any]] ?? [] {
            let name = "\(t["name"] as? String ?? "") [\(t["device"] as? String ?? "")]"
            let c = try #require(cases[name], "no testcase \(name)")
            let out = c.elements(forName: "system-out").compactMap(\.stringValue).joined(separator: "\n")
            for a in t["attempts"] as? [[String: Any]] ?? [] {
                #expect(out.contains("attempt \(a["number"] as? Int ?? 0) (\(a["reason"] as? String ?? "")): \(a["verdict"] as? String ?? "")"), "\(name): \(out)")
                for s in a["steps"] as? [[String: Any]] ?? [] {
                    let steps = out.split(separator: "\n").map(String.init)
                    for m in s["measurements"] as? [[String: Any]] ?? [] {
                        let limit = m["name"] as? String ?? "", verdict = m["verdict"] as? String ?? ""
                        let line = ", limit \(limit): "
                        #expect(steps.contains { $0.hasPrefix("    ") && $0.contains(line) && $0.contains(", \(verdict), source: ") }, "\(name): no line for the limit \(limit) with \(verdict): \(out)")
                    }
                    for f in s["figures"] as? [[String: Any]] ?? [] {
                        let figure = f["name"] as? String ?? "", unit = f["unit"] as? String ?? ""
                        let lines = out.split(separator: "\n").map(String.init).filter { $0.hasPrefix("    \(figure) = ") }
                        #expect(!lines.isEmpty, "\(name): \(figure) not listed in \(out)")
                        for line in lines {
                            #expect(unit == "1" || line.contains(" \(unit),"), "\(line) lacks the unit \(unit)")
                            #expect(line.hasSuffix("source: model (simulated sled)") || line.hasSuffix("source: chip (the DRV2605's registers)"), "\(line)")
                            #expect(line.contains("source: \(f["source"] as? String ?? "?")"), "\(line) vs the record's source")
                        }
                        listed += 1
                    }
                }
            }
        }
        #expect(listed >= 20, "every figure of the example run: \(listed)")
        // GitLab shows a failure's own text only: the figures are there too.
        let failure = try #require(cases["rise time too tight [dut]"]?.elements(forName: "failure").first)
        #expect(failure.stringValue?.contains("    rise time 10→90 % = 10.") == true && failure.stringValue?.contains("limit rise time: x ≤ 1 ms, FAIL") == true, "\(failure.stringValue ?? "")")
    }

    @Test("Each plot written is a [[ATTACHMENT|path]] line of its testcase, the path as --plots gave it; a failed test's first is its failing step's")
    func junitAttachments() throws {
        let o = try runExamples()
        var attached: [String] = []
        for c in Self.cases(o.junit) {
            let out = c.elements(forName: "system-out").compactMap(\.stringValue).joined(separator: "\n")
            for line in out.split(separator: "\n") where line.contains("[[ATTACHMENT|") {
                #expect(line.hasPrefix("[[ATTACHMENT|plots/") && line.hasSuffix(".svg]]"), "alone on its line, relative: \(line)")
                let path = String(line.dropFirst("[[ATTACHMENT|".count).dropLast(2))
                #expect(FileManager.default.fileExists(atPath: "\(o.dir)/\(path)"), "\(path) was not written")
                attached.append(path)
            }
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: "\(o.dir)/plots").map { "plots/\($0)" }
        #expect(Set(attached) == Set(written) && attached.count == written.count, "attached \(attached), written \(written)")
        let tight = try #require(Self.cases(o.junit).first { Self.attribute($0, "name") == "rise time too tight [dut]" })
        let first = tight.elements(forName: "system-out").first?.stringValue?.split(separator: "\n").first { $0.hasPrefix("[[ATTACHMENT|") }
        #expect(first == "[[ATTACHMENT|plots/05-rise-time-too-tight-step1.svg]]")
    }

    @Test("The JUnit XML is valid against Jenkins' junit-10.xsd as published (xmllint); with --junit-testcase-file, GitLab's file= on each testcase is the one thing that schema refuses")
    func junitSchema() throws {
        let xsd = Repo.path("Tests/Fixtures/junit/junit-10.xsd")
        let o = try runExamples()
        let lint = try runProcess("/usr/bin/env", ["xmllint", "--noout", "--schema", xsd, "\(o.dir)/run.xml"])
        #expect(lint.status == 0, "\(lint.stderr)")
        let gitlab = try runExamples(extra: ["--junit-testcase-file"])
        let strict = try runProcess("/usr/bin/env", ["xmllint", "--noout", "--schema", xsd, "\(gitlab.dir)/run.xml"])
        let complaints = strict.stderr.split(separator: "\n").filter { !$0.hasSuffix("fails to validate") }
        #expect(complaints.count == 7 && complaints.allSatisfy { $0.contains("Element 'testcase', attribute 'file': The attribute 'file' is not allowed.") }, "\(strict.stderr)")
    }

    @Test("The same test on two devices is two testcases and two label sets; a script given twice is told apart by its occurrence")
    func twoDevices() throws {
        let dir = try temporaryDirectory()
        try "bench: pair\ndevices:\n  - {name: left, address: sim, actuator: pmd-c10-100}\n  - {name: right, address: sim, actuator: pmd-c10-100}\n"
            .write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        for side in ["left", "right"] {
            try "suite: s\ntests:\n  - name: impact\n    device: \(side)\n    steps:\n      - measure: ios.impact.heavy\n        limits:\n          - {figure: rise, unit: ms, high: 20}\n"
                .write(toFile: "\(dir)/\(side).yaml", atomically: true, encoding: .utf8)
        }
        let r = try runProcess(
            Repo.hapbridge,
            ["run", "\(dir)/bench.yaml", "\(dir)/left.yaml", "\(dir)/right.yaml", "\(dir)/left.yaml", "--junit", "\(dir)/run.xml", "--metrics", "\(dir)/m.txt", "--lock-dir", dir])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try XMLDocument(contentsOf: URL(fileURLWithPath: "\(dir)/run.xml"))
        #expect(Self.cases(doc).map { Self.attribute($0, "name") } == ["impact [left]", "impact (2) [left]", "impact [right]"], "grouped by script, in run order")
        let parsed = try Self.parseMetrics("\(dir)/m.txt")
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        let rise = parsed.samples.filter { $0.family == "hapbridge_hil_rise_seconds" }.map { "\($0.labels["test"] ?? "") \($0.labels["device"] ?? "")" }
        #expect(rise.sorted() == ["impact (2) left", "impact left", "impact right"], "\(rise)")
    }

    // MARK: OpenMetrics

    struct Sample {
        var family: String
        var type: String
        var unit: String
        var name: String
        var labels: [String: String]
        /// As Python's repr wrote it: read back as the same double.
        var value: Double
    }

    /// The file through prometheus_client's OpenMetrics parser; its samples, and what
    /// the parser refused or a family held twice.
    static func parseMetrics(_ path: String) throws -> (samples: [Sample], problems: [String], lastLine: String) {
        let script = """
            import json, sys
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
            text = open(sys.argv[1], encoding="utf-8").read()
            out, problems = [], []
            try:
                for f in text_string_to_metric_families(text):
                    seen = set()
                    for s in f.samples:
                        key = (s.name, tuple(sorted(s.labels.items())))
                        if key in seen: problems.append("duplicate label set in " + f.name + ": " + repr(key))
                        seen.add(key)
                        out.append({"family": f.name, "type": f.type, "unit": f.unit, "name": s.name, "labels": s.labels, "value": repr(float(s.value))})
            except Exception as e:
                problems.append("parser: %r" % e)
            print(json.dumps({"samples": out, "problems": problems}))
            """
        let r = try runProcess(python, ["-c", script, path])
        guard r.status == 0, let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            return ([], ["python3 \(r.status): \(r.stderr) (apt-get install python3-prometheus-client: scripts/apt-packages.txt)"], "")
        }
        let samples = (object["samples"] as? [[String: Any]] ?? []).map {
            Sample(
                family: $0["family"] as? String ?? "", type: $0["type"] as? String ?? "", unit: $0["unit"] as? String ?? "", name: $0["name"] as? String ?? "",
                labels: $0["labels"] as? [String: String] ?? [:], value: Double($0["value"] as? String ?? "") ?? .nan)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (samples, object["problems"] as? [String] ?? [], text.split(separator: "\n").last.map(String.init) ?? "")
    }

    /// OpenMetrics' base units ("Units and Base Units"), written here from the
    /// specification, not taken from hapbridge: a record unit's name in a family and the
    /// value as the record's converts to it.
    static func openMetricsUnit(_ recordUnit: String, _ v: Double) -> (unit: String, value: Double)? {
        switch recordUnit {
        case "ms": ("seconds", v / 1000)
        case "Hz": ("hertz", v)
        case "g": ("meters_per_second_squared", v * 9.80665)
        case "%": ("ratio", v / 100)
        case "bytes": ("bytes", v)
        case "code", "1": ("", v)
        default: nil
        }
    }

    /// The record's numbers as Python's json module reads them (correctly rounded).
    static func recordFigures(_ path: String) throws -> [[String: Any]] {
        let script = """
            import json, sys
            r = json.load(open(sys.argv[1], encoding="utf-8"))
            out = []
            for t in r["tests"]:
                for a in t["attempts"]:
                    for s in a["steps"]:
                        for f in s["figures"]:
                            out.append({"test": t["name"], "device": t["device"], "suite": t["suite"], "attempt": str(a["number"]), "step": "%d %s" % (s["index"] + 1, s["label"]),
                                        "figure": f["name"], "unit": f["unit"], "value": repr(float(f["value"])), "source": f["source"], "kind": "figure"})
                        for m in s["measurements"]:
                            for bound in ("low", "high", "marginal"):
                                if m[bound] is not None:
                                    out.append({"test": t["name"], "device": t["device"], "suite": t["suite"], "attempt": str(a["number"]), "step": "%d %s" % (s["index"] + 1, s["label"]),
                                                "limit": m["name"], "figureId": m["figure"], "unit": m["unit"], "bound": bound, "value": repr(float(m[bound])), "verdict": m["verdict"], "kind": "limit"})
            print(json.dumps(out))
            """
        let r = try runProcess(python, ["-c", script, path])
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    @Test("Every figure of the JSON record is a gauge with an equal value (in base units), labelled bench, device, serial, actuator, suite, test, step, figure, source")
    func metricsHoldEveryFigure() throws {
        let o = try runExamples()
        let parsed = try Self.parseMetrics("\(o.dir)/metrics.txt")
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.lastLine == "# EOF")
        let device = try #require((o.record["devices"] as? [[String: Any]])?.first)
        let figures = try Self.recordFigures("\(o.dir)/run.json").filter { $0["kind"] as? String == "figure" }
        #expect(figures.count >= 20, "\(figures.count)")
        var found = 0
        for f in figures {
            let recorded = Double(f["value"] as? String ?? "") ?? .nan
            let expected = try #require(Self.openMetricsUnit(f["unit"] as? String ?? "", recorded), "unit \(f["unit"] ?? "")")
            let matches = parsed.samples.filter { s in
                s.type == "gauge" && !s.family.contains("_limit") && !s.family.hasSuffix("_verdict") && s.labels["test"] == f["test"] as? String && s.labels["attempt"] == f["attempt"] as? String
                    && s.labels["step"] == f["step"] as? String && s.labels["figure"] == f["figure"] as? String
            }
            guard matches.count == 1, let s = matches.first else {
                Issue.record("\(f): \(matches.count) samples")
                continue
            }
            #expect(s.unit == expected.unit && (expected.unit.isEmpty || s.family.hasSuffix("_" + expected.unit)), "\(s.family) unit \(s.unit) for \(f["unit"] ?? "")")
            #expect(s.value == expected.value, "\(s.family) \(s.value) vs the record's \(recorded) \(f["unit"] ?? "")")
            #expect(s.labels["bench"] == "sim-bench" && s.labels["device"] == f["device"] as? String && s.labels["suite"] == f["suite"] as? String)
            #expect(s.labels["serial"] == device["serialNumber"] as? String && s.labels["actuator"] == device["actuator"] as? String)
            #expect(s.labels["source"] == f["source"] as? String, "\(s.labels)")
            found += 1
        }
        #expect(found == figures.count, "\(found) of \(figures.count) figures found")
    }

    @Test("Each limit is a gauge beside its figure (low, high, marginal) and each verdict one sample per verdict, exactly the record's set to 1")
    func metricsHoldLimitsAndVerdicts() throws {
        let o = try runExamples()
        let parsed = try Self.parseMetrics("\(o.dir)/metrics.txt")
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        let limits = try Self.recordFigures("\(o.dir)/run.json").filter { $0["kind"] as? String == "limit" }
        #expect(limits.count >= 10)
        for l in limits {
            let recorded = Double(l["value"] as? String ?? "") ?? .nan
            let expected = try #require(Self.openMetricsUnit(l["unit"] as? String ?? "", recorded))
            let keys = { (s: Sample) in
                s.labels["test"] == l["test"] as? String && s.labels["attempt"] == l["attempt"] as? String && s.labels["step"] == l["step"] as? String
                    && s.labels["limit"] == l["limit"] as? String
            }
            let bound = parsed.samples.filter { keys($0) && $0.family.contains("_limit") && $0.labels["bound"] == l["bound"] as? String }
            #expect(bound.count == 1 && bound.first?.value == expected.value, "\(l): \(bound.map(\.value))")
            let states = parsed.samples.filter { keys($0) && $0.family.hasSuffix("_verdict") }
            let on = states.filter { $0.value == 1 }.compactMap { $0.labels["verdict"] }
            #expect(on == [l["verdict"] as? String ?? "?"] && states.count == 5, "\(l): \(on) of \(states.count)")
        }
        let tests = parsed.samples.filter { $0.family == "hapbridge_hil_test_verdict" && $0.value == 1 }
        #expect(tests.count == 7 && tests.contains { $0.labels["test"] == "rise time too tight" && $0.labels["verdict"] == "FAIL" })
    }

    // MARK: bad outputs

    @Test("--metrics to a directory or into a directory that is not there: exit 1 naming the path, before anything runs")
    func metricsUnwritable() throws {
        let dir = try temporaryDirectory()
        for target in [dir, "\(dir)/missing/m.txt"] {
            let r = try runProcess(Repo.hapbridge, ["run", Self.bench, Self.suite, "--metrics", target, "--json", "\(dir)/run.json", "--lock-dir", dir])
            #expect(r.status == 1 && r.stderr.hasPrefix("Error: cannot write the OpenMetrics figures to \(target): ") && !r.stderr.contains("health"), "\(r.stderr)")
        }
    }

    @Test("--metrics that fails as it is written (/dev/full) is exit 1 naming it, and the JSON record, the JUnit XML and the plots are still written")
    func metricsWriteFails() throws {
        let dir = try temporaryDirectory()
        let r = try runProcess(
            Repo.hapbridge,
            ["run", Self.bench, Self.suite, "--metrics", "/dev/full", "--json", "\(dir)/run.json", "--junit", "\(dir)/run.xml", "--plots", "\(dir)/plots", "--lock-dir", dir])
        #expect(r.status == 1 && r.stderr.contains("Error: cannot write the OpenMetrics figures to /dev/full: "), "\(r.stderr)")
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/run.json"))) as? [String: Any]
        #expect(record?["verdict"] as? String == "ERROR")
        #expect(Self.cases(try XMLDocument(contentsOf: URL(fileURLWithPath: "\(dir)/run.xml"))).count == 7)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/plots")) ?? []).count == 4)
    }

    @Test("--metrics and --json (or --junit) to one destination is a usage error")
    func metricsSameDestination() throws {
        let dir = try temporaryDirectory()
        for other in ["--json", "--junit"] {
            let r = try runProcess(Repo.hapbridge, ["run", Self.bench, Self.suite, other, "-", "--metrics", "/dev/stdout", "--lock-dir", dir])
            #expect(r.status == 2 && r.stderr.contains("\(other) and --metrics name the same destination"), "\(r.stderr)")
        }
    }
}
