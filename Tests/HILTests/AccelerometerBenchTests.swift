import Foundation
import Testing

/// A bench whose features include `lis3dh` fits the LIS3DH to its `sim` devices, so a
/// measuring step's figures come from the sensor, and the record and the JUnit file
/// say so; the same script on a bench without it gets the model's figures, labelled so.
@Suite("hapbridge run: a bench with a LIS3DH")
struct AccelerometerBenchTests {
    static func bench(features: String) -> String {
        """
        bench: accel-bench
        devices:
          - name: dut
            address: sim
            actuator: pmd-c10-100
        features: \(features)
        """
    }

    /// 0.3 s at full intensity: over that many cycles the sensor's largest sample comes
    /// within 2 % of the crest (AccelerometerTelemetryTests: 3 % + 25 mg).
    static let buzz = """
        {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}}]}
        """

    func run(features: String) throws -> (record: [String: Any], junit: String, status: Int32) {
        let dir = try temporaryDirectory()
        try Self.bench(features: features).write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try Self.buzz.write(toFile: "\(dir)/buzz.ahap", atomically: true, encoding: .utf8)
        try """
            suite: s
            tests:
              - name: buzz
                steps:
                  - measure: \(dir)/buzz.ahap
                    limits: [{figure: peak, unit: g, low: 0.1}]
            """.write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        let r = try runProcess(
            Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/t.yaml", "--json", "\(dir)/r.json", "--junit", "\(dir)/r.xml", "--lock-dir", dir])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/r.json"))) as? [String: Any], "\(r.stderr)")
        return (record, try String(contentsOfFile: "\(dir)/r.xml", encoding: .utf8), r.status)
    }

    func step(_ record: [String: Any]) throws -> [String: Any] {
        let test = try #require((record["tests"] as? [[String: Any]])?.first)
        let attempt = try #require((test["attempts"] as? [[String: Any]])?.last)
        return try #require((attempt["steps"] as? [[String: Any]])?.first)
    }

    func peak(_ step: [String: Any]) -> Double? {
        (step["figures"] as? [[String: Any]])?.first { $0["name"] as? String == "peak acceleration" }?["value"] as? Double
    }

    @Test("features [lis3dh] on sim: the measure step's acceleration is the sensor's (record and JUnit), its peak within 3 % + 25 mg of the model's on a bench without it")
    func sensorOnTheBench() throws {
        let sensor = try run(features: "[lis3dh]"), model = try run(features: "[sled]")
        #expect(sensor.status == 0 && model.status == 0)
        let s = try step(sensor.record), m = try step(model.record)
        let sa = try #require(s["acceleration"] as? [String: Any]), ma = try #require(m["acceleration"] as? [String: Any])
        #expect(sa["source"] as? String == "sensor" && sa["sourceDevice"] as? String == "LIS3DH" && (sa["samples"] as? Double ?? 0) > 600)
        #expect(ma["source"] as? String == "model" && ma["sourceDevice"] as? String == "simulated sled")
        #expect(sensor.junit.contains("name=\"buzz [dut] › step 1 measure source\" value=\"sensor (LIS3DH, "), "\(sensor.junit)")
        #expect(model.junit.contains("name=\"buzz [dut] › step 1 measure source\" value=\"model (simulated sled)\""), "\(model.junit)")
        let ps = try #require(peak(s)), pm = try #require(peak(m))
        #expect(abs(ps - pm) <= 0.03 * pm + 0.025, "peak: sensor \(ps) g, model \(pm) g")
    }
}
