import Foundation
import Testing

/// The `compare` step through `hapbridge run` on the simulated board: a golden trace
/// saved by `hapbridge measure --save-trace` (in the same isolated configuration, so
/// both play open loop, as a run does), then played against.
@Suite struct RunCompareTests {
    static let buzz = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}"#

    static let bench = """
        bench: golden-bench
        devices:
          - name: dut
            address: sim
            actuator: pmd-c10-100
        """

    static let script = """
        suite: golden
        tests:
          - name: buzz against its golden trace
            steps:
              - compare: {reference: golden.json, pattern: buzz.ahap}
                limits:
                  - {figure: onset-delta, unit: ms, low: -0.5, high: 0.5}
                  - {figure: envelope-error, unit: dB, high: 0.5}
        """

    /// A scratch directory with the bench, the script, the pattern and a golden trace
    /// measured with `extra` (on the simulated board).
    static func setUp(golden extra: [String]) throws -> String {
        let dir = try temporaryDirectory()
        try bench.write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try script.write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        try buzz.write(toFile: "\(dir)/buzz.ahap", atomically: true, encoding: .utf8)
        let measured = try runProcess(
            Repo.hapbridge, ["measure", "\(dir)/buzz.ahap", "--device", "sim", "--actuator", "pmd-c10-100", "--save-trace", "\(dir)/golden.json"] + extra)
        #expect(measured.status == 0, "\(measured.stderr)")
        return dir
    }

    /// Every figure in a `--json` record, by name.
    static func figures(in record: String) throws -> [String: Double] {
        var out: [String: Double] = [:]
        func walk(_ v: Any) {
            if let d = v as? [String: Any] {
                if let figures = d["figures"] as? [[String: Any]] {
                    for f in figures { if let n = f["name"] as? String, let x = f["value"] as? Double { out[n] = x } }
                }
                d.values.forEach(walk)
            } else if let a = v as? [Any] {
                a.forEach(walk)
            }
        }
        walk(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))))
        return out
    }

    @Test("A compare step against a golden trace of the same board and actuator PASSes with every figure exactly 0, recorded in JSON, JUnit and OpenMetrics (dB as decibels)")
    func sameBoardPasses() throws {
        let dir = try Self.setUp(golden: [])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runProcess(
            Repo.hapbridge,
            ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--json", "\(dir)/run.json", "--junit", "\(dir)/run.xml", "--metrics", "\(dir)/metrics.txt", "--lock-dir", dir])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let figures = try Self.figures(in: "\(dir)/run.json")
        #expect(figures["onset delta"] == 0 && figures["envelope error"] == 0 && figures["peak delta"] == 0, "\(figures)")
        let junit = try String(contentsOfFile: "\(dir)/run.xml", encoding: .utf8)
        #expect(junit.contains("envelope error") && junit.contains("dB"), "\(junit)")
        let metrics = try String(contentsOfFile: "\(dir)/metrics.txt", encoding: .utf8)
        #expect(metrics.contains("_decibels{") && metrics.contains("figure=\"envelope error\""), "\(metrics)")
    }

    @Test("A compare step FAILs (exit 11) when the golden trace was of another actuator on the board, naming the figures outside their limits")
    func anotherActuatorFails() throws {
        let dir = try Self.setUp(golden: ["--simulate-actuator", "vybronics-vg0832012"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--json", "\(dir)/run.json", "--lock-dir", dir])
        #expect(r.status == 11, "\(r.stdout)\n\(r.stderr)")
        let record = try String(contentsOfFile: "\(dir)/run.json", encoding: .utf8)
        #expect(record.contains("differs from golden.json") && record.contains("envelope error"), "\(record)")
    }

    @Test("A compare step whose reference is not a golden trace is refused before anything runs (exit 2), naming the script's line and key, the file, the field and the rule")
    func badReferenceIsAScriptError() throws {
        let dir = try Self.setUp(golden: [])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"schema": "hapbridge-trace/1", "pattern": 3}"#.write(toFile: "\(dir)/golden.json", atomically: true, encoding: .utf8)
        let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--lock-dir", dir])
        #expect(r.status == 2, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("compare.reference") && r.stderr.contains("golden.json: pattern: must be a string, not a number"), "\(r.stderr)")
    }
}
