import Foundation
import FoundationXML
import Testing

/// `hapbridge run --junit` as CI reads it, through the built executable on
/// Examples/hil's simulated bench: the JUnit XML against Jenkins' junit-10.xsd
/// (xmllint) and as GitLab keys and shows it, checked against the JSON record of the
/// same run.
@Suite("hapbridge run: JUnit for CI")
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
                "--plots", "plots", "--lock-dir", "locks",
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

    @Test("Every testcase is named for its test and its device, once in the file, with file= its script")
    func junitNames() throws {
        let o = try runExamples()
        #expect(o.run.status == 9, "\(o.run.stderr)")
        let cases = Self.cases(o.junit)
        #expect(cases.count == 7)
        let keys = cases.map { "\(Self.attribute($0, "classname"))\u{0}\(Self.attribute($0, "name"))" }
        #expect(Set(keys).count == cases.count, "GitLab keeps one testcase per suite, classname and name: \(keys)")
        for c in cases {
            #expect(Self.attribute(c, "name").hasSuffix(" [dut]"), "\(Self.attribute(c, "name"))")
            #expect(Self.attribute(c, "file") == Self.suite)
            #expect(Self.attribute(c, "classname") == "hil-example")
        }
        #expect(cases.contains { Self.attribute($0, "name") == "rise time too tight [dut]" })
        #expect(o.junit.rootElement()?.elements(forName: "testsuite").first.map { Self.attribute($0, "file") } == Self.suite)
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

    @Test("The JUnit XML is valid against Jenkins' junit-10.xsd (xmllint) with GitLab's file= on testcase, the one attribute that schema lacks")
    func junitSchema() throws {
        let o = try runExamples()
        let xsd = try String(contentsOfFile: Repo.path("Tests/Fixtures/junit/junit-10.xsd"), encoding: .utf8)
        // junit-10.xsd names a testcase's attributes; GitLab reads `file` there too.
        let anchor = "<xs:attribute name=\"group\" type=\"xs:string\"/>\n        </xs:complexType>\n    </xs:element>\n\n    <xs:element name=\"testsuite\">"
        #expect(xsd.components(separatedBy: anchor).count == 2, "the testcase's attribute list is where it was")
        let withFile = xsd.replacingOccurrences(of: anchor, with: "<xs:attribute name=\"file\" type=\"xs:string\"/>\n            " + anchor)
        try withFile.write(toFile: "\(o.dir)/junit-10-file.xsd", atomically: true, encoding: .utf8)
        let lint = try runProcess("/usr/bin/env", ["xmllint", "--noout", "--schema", "\(o.dir)/junit-10-file.xsd", "\(o.dir)/run.xml"])
        #expect(lint.status == 0, "\(lint.stderr)")
        // Against the schema as published, the only complaints are that attribute.
        let strict = try runProcess("/usr/bin/env", ["xmllint", "--noout", "--schema", Repo.path("Tests/Fixtures/junit/junit-10.xsd"), "\(o.dir)/run.xml"])
        let complaints = strict.stderr.split(separator: "\n").filter { !$0.hasSuffix("fails to validate") }
        #expect(complaints.count == 7 && complaints.allSatisfy { $0.contains("Element 'testcase', attribute 'file': The attribute 'file' is not allowed.") }, "\(strict.stderr)")
    }

    @Test("The same test on two devices is two testcases; a script given twice is told apart by its occurrence")
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
            ["run", "\(dir)/bench.yaml", "\(dir)/left.yaml", "\(dir)/right.yaml", "\(dir)/left.yaml", "--junit", "\(dir)/run.xml", "--lock-dir", dir])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try XMLDocument(contentsOf: URL(fileURLWithPath: "\(dir)/run.xml"))
        #expect(Self.cases(doc).map { Self.attribute($0, "name") } == ["impact [left]", "impact (2) [left]", "impact [right]"], "grouped by script, in run order")
    }
}
