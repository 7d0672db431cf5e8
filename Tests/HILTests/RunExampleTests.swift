import Foundation
import FoundationXML
import Testing

/// `hapbridge run` on Examples/hil through the built executable: the exit status, the
/// JSON record and the JUnit XML it writes.
@Suite("hapbridge run on Examples/hil")
struct RunExampleTests {
    static let bench = Repo.path("Examples/hil/bench-sim.yaml")
    static let suite = Repo.path("Examples/hil/suite.yaml")

    struct Outputs {
        var run: ProcessRun
        var record: [String: Any]
        var junit: XMLDocument
        var junitText: String
        var plots: [String]
    }

    func runExamples() throws -> Outputs {
        let dir = try temporaryDirectory()
        let run = try runProcess(
            Repo.hapbridge,
            ["run", Self.bench, Self.suite, "--json", "\(dir)/run.json", "--junit", "\(dir)/run.xml", "--plots", "\(dir)/plots", "--lock-dir", "\(dir)/locks"])
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/run.json")))
        let text = try String(contentsOfFile: "\(dir)/run.xml", encoding: .utf8)
        let plots = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/plots")) ?? []
        return Outputs(run: run, record: try #require(json as? [String: Any]), junit: try XMLDocument(xmlString: text), junitText: text, plots: plots)
    }

    func tests(_ record: [String: Any]) -> [String: [String: Any]] {
        Dictionary(((record["tests"] as? [[String: Any]]) ?? []).map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("The suite's verdicts: passes (bring-up, calibration, response times, the sweep), one FAIL, one ERROR, one SKIP; exit 9 (an ERROR outranks a FAIL)")
    func verdicts() throws {
        let o = try runExamples()
        #expect(o.run.status == 9, "\(o.run.stderr)")
        let t = tests(o.record)
        #expect(t["bring-up"]?["verdict"] as? String == "PASS")
        #expect(t["calibration pass rate"]?["verdict"] as? String == "PASS")
        #expect(t["response of a heavy impact"]?["verdict"] as? String == "PASS")
        #expect(t["resonance sweep"]?["verdict"] as? String == "PASS")
        #expect(t["rise time too tight"]?["verdict"] as? String == "FAIL")
        #expect(t["device vanishes"]?["verdict"] as? String == "ERROR")
        #expect(t["needs an accelerometer"]?["verdict"] as? String == "SKIP")
        #expect((t["needs an accelerometer"]?["message"] as? String)?.contains("lis3dh") == true)
        #expect((t["device vanishes"]?["message"] as? String)?.contains("vanished mid-test") == true)
        #expect(o.run.stderr.contains("health dut (sim): OK") && o.run.stderr.contains("[5/7] hil-example › rise time too tight"))
        #expect(o.run.stderr.contains("7 tests: 4 passed, 0 marginal, 1 failed, 1 errors, 1 skipped"), "\(o.run.stderr)")
    }

    @Test("The JSON record holds the bench, device serial and firmware, every measurement with unit, limits and verdict, and every attempt")
    func record() throws {
        let o = try runExamples()
        #expect(o.record["schema"] as? String == "hapbridge-hil-run/1")
        #expect((o.record["bench"] as? [String: Any])?["name"] as? String == "sim-bench")
        let device = try #require((o.record["devices"] as? [[String: Any]])?.first)
        #expect(device["serialNumber"] as? String == "SIMULATED" && device["firmwareVersion"] is String && device["chip"] as? String == "DRV2605L")
        let supply = try #require(device["supplyVolts"] as? Double)
        #expect(abs(supply - 5) < 0.1)
        let t = tests(o.record)
        // Repeat on FAIL: both attempts recorded, the second says why it ran.
        let tight = try #require(t["rise time too tight"]?["attempts"] as? [[String: Any]])
        #expect(tight.count == 2 && tight[1]["reason"] as? String == "repeat after FAIL")
        let m = try #require(((tight[0]["steps"] as? [[String: Any]])?.first?["measurements"] as? [[String: Any]])?.first)
        #expect(m["unit"] as? String == "ms" && m["high"] as? Double == 1 && m["verdict"] as? String == "FAIL")
        let rise = try #require(m["value"] as? Double)
        #expect(rise > 5 && rise < 20)  // the C10-100's rise, worked out in MeasurementsTests
        // The f0 measured on bring-up is the profile's 175 Hz within one LRA_PERIOD code.
        let bring = try #require(t["bring-up"]?["attempts"] as? [[String: Any]])
        let f0 = try #require(((bring[0]["steps"] as? [[String: Any]])?.first?["measurements"] as? [[String: Any]])?.first?["value"] as? Double)
        #expect(abs(f0 - 175) < 3)
        // The sweep: f0 fitted to the open-loop response within 1 % of the profile's
        // 175 Hz, the loaded Q below the part's 12 (back-EMF damping: SweepCommandTests'
        // bounds), the bandwidth f0/Q; each with its unit, limits and verdict.
        let sweep = try #require(((t["resonance sweep"]?["attempts"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])?.first)
        #expect(sweep["step"] as? String == "sweep" && sweep["label"] as? String == "sweep 140–215 Hz")
        let ms = Dictionary(((sweep["measurements"] as? [[String: Any]]) ?? []).map { ($0["figure"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let sweptF0 = try #require(ms["f0"]?["value"] as? Double), q = try #require(ms["q"]?["value"] as? Double)
        let bandwidth = try #require(ms["bandwidth"]?["value"] as? Double)
        #expect(abs(sweptF0 - 175) < 1.75 && q > 10 && q < 12.5, "f0 \(sweptF0) Hz, Q \(q)")
        #expect(abs(bandwidth - sweptF0 / q) < 0.1 * bandwidth, "bandwidth \(bandwidth) Hz")
        #expect(ms["f0"]?["name"] as? String == "resonance f0 (sweep fit)" && ms["f0"]?["unit"] as? String == "Hz" && ms["f0"]?["low"] as? Double == 171.5)
        #expect(ms["q"]?["unit"] as? String == "1" && ms["bandwidth"]?["unit"] as? String == "Hz")
        #expect(ms.values.allSatisfy { $0["verdict"] as? String == "PASS" }, "\(ms)")
    }

    @Test("The JUnit XML is well-formed with junit-10.xsd's attributes, measurements also as suite properties and the value in the failure message")
    func junit() throws {
        let o = try runExamples()
        let root = try #require(o.junit.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == 1)
        let s = try #require(suites.first)
        for a in ["name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package"] {
            #expect(s.attribute(forName: a) != nil, "testsuite lacks \(a)")
        }
        #expect(s.attribute(forName: "tests")?.stringValue == "7" && s.attribute(forName: "failures")?.stringValue == "1")
        #expect(s.attribute(forName: "errors")?.stringValue == "1" && s.attribute(forName: "skipped")?.stringValue == "1")
        let cases = s.elements(forName: "testcase")
        #expect(cases.count == 7)
        for c in cases { for a in ["name", "classname", "time"] { #expect(c.attribute(forName: a) != nil) } }
        let tight = try #require(cases.first { $0.attribute(forName: "name")?.stringValue == "rise time too tight [dut]" })
        let failure = try #require(tight.elements(forName: "failure").first)
        #expect(failure.attribute(forName: "message")?.stringValue?.contains("rise time = 10.") == true)
        let props = s.elements(forName: "properties").first?.elements(forName: "property") ?? []
        #expect(
            props.contains {
                $0.attribute(forName: "name")?.stringValue == "rise time too tight [dut] › rise time"
                    && $0.attribute(forName: "value")?.stringValue?.hasSuffix("ms [x ≤ 1 ms] FAIL") == true
            })
        // The sweep's figures as properties: value with unit, limits, verdict.
        let sweepProps = Dictionary(
            props.compactMap { p in p.attribute(forName: "name")?.stringValue.flatMap { $0.hasPrefix("resonance sweep [dut] › ") ? ($0, p.attribute(forName: "value")?.stringValue ?? "") : nil } },
            uniquingKeysWith: { a, _ in a })
        #expect(sweepProps["resonance sweep [dut] › resonance f0 (sweep fit)"]?.hasSuffix(" Hz [171.5 ≤ x ≤ 178.5 Hz] PASS") == true, "\(sweepProps)")
        #expect(sweepProps["resonance sweep [dut] › Q (loaded)"]?.hasSuffix(" [8 ≤ x ≤ 14] PASS") == true, "\(sweepProps)")
        #expect(sweepProps["resonance sweep [dut] › −3 dB bandwidth"]?.hasSuffix(" Hz [12 ≤ x ≤ 22 Hz] PASS") == true, "\(sweepProps)")
        #expect(props.contains { $0.attribute(forName: "name")?.stringValue == "device.dut" && $0.attribute(forName: "value")?.stringValue?.contains("serial SIMULATED") == true })
        let vanished = try #require(cases.first { $0.attribute(forName: "name")?.stringValue == "device vanishes [dut]" })
        #expect(!vanished.elements(forName: "error").isEmpty)
        let skipped = try #require(cases.first { $0.attribute(forName: "name")?.stringValue == "needs an accelerometer [dut]" })
        #expect(!skipped.elements(forName: "skipped").isEmpty)
        #expect(o.plots.count == 4, "one SVG per play, measure and sweep step of the last attempts: \(o.plots)")
    }

    @Test("The sweep's plot is the magnitude response with f0 and the −3 dB points marked")
    func sweepPlot() throws {
        let dir = try temporaryDirectory()
        _ = try runProcess(Repo.hapbridge, ["run", Self.bench, Self.suite, "--plots", "\(dir)/plots", "--lock-dir", dir])
        let svg = try String(contentsOfFile: "\(dir)/plots/04-resonance-sweep-step1.svg", encoding: .utf8)
        #expect(svg.hasPrefix("<svg") || svg.contains("<svg"))
        #expect(svg.contains("hil-example › resonance sweep: sweep 140–215 Hz") && svg.contains("acceleration per drive volt"))
        #expect(svg.contains("f0 17") && svg.components(separatedBy: "−3 dB 1").count - 1 == 2, "f0 and both −3 dB points marked")
    }

    @Test("A script error stops the run before anything ran: exit 2 and file:line: key")
    func scriptError() throws {
        let dir = try temporaryDirectory()
        try "suite: s\ntests:\n  - name: a\n    steps:\n      - measure: ios.impact.heavy\n        limits:\n          - {figure: rise, unit: Hz, high: 3}\n"
            .write(toFile: "\(dir)/bad.yaml", atomically: true, encoding: .utf8)
        let r = try runProcess(Repo.hapbridge, ["run", Self.bench, "\(dir)/bad.yaml", "--lock-dir", dir])
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.yaml:7: tests[0].steps[0].limits[0].unit: rise is in ms, not Hz"), "\(r.stderr)")
    }
}
