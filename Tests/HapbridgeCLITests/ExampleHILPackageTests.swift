import Foundation
import Testing

/// Examples/HILPackage is a user's package running HIL tests in its own `swift test`
/// through `import HapbridgeTesting`, on the simulated bench in its bench-sim.yaml. Run
/// as a user runs it (`swift test` in the package), in the scratch directory the other
/// example package builds into (see `ExamplePackageTests`), with the record written to
/// `$HAPBRIDGE_HIL_RECORD` and the board locks in a directory of the test's own.
extension ExamplePackageTests {
    static let hilExample = Hapbridge.path("Examples/HILPackage")

    @Test("The HIL example package's swift test passes on sim: bring-up, calibration, response-time and sweep limits; the accelerometer test skipped with the reason; the record holds the sweep's f0, and its OpenMetrics the same value")
    func hilExamplePackageTests() throws {
        let scratch = try ExampleScratch.shared()
        let records = scratch.appendingPathComponent("hil-record-\(UUID().uuidString)")
        let test = try Self.run(
            [
                "HAPBRIDGE_HIL_RECORD=\(records.path)", "HAPBRIDGE_LOCK_DIR=\(records.path)/locks",
                "swift", "test", "--package-path", Self.hilExample, "--scratch-path", scratch.path,
            ],
            bound: Self.buildBoundSeconds, in: scratch, directory: Self.hilExample)
        #expect(test.status == 0, "swift test in Examples/HILPackage: \(test.output)")
        let lines = test.output.split(separator: "\n").map(String.init)
        for name in ["Bring-up", "Auto-calibration passes", "A heavy impact", "The open-loop sweep", "A limit the part cannot meet", "withBench opens"] {
            #expect(lines.contains { $0.contains("Test \"\(name)") && $0.contains("passed") }, "\(name): \(test.output)")
        }
        #expect(
            lines.contains { $0.contains("An accelerometer test") && $0.contains("cancelled") && $0.contains("needs lis3dh, which the bench hilpackage-sim lacks") },
            "\(test.output)")
        #expect(lines.contains { $0.contains("Test run with 8 tests") && $0.contains("passed") }, "\(test.output)")

        // The record hapbridge run writes, for the suite's bench.
        let data = try Data(contentsOf: records.appendingPathComponent("hilpackage-sim.json"))
        let record = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(record["schema"] as? String == "hapbridge-hil-run/1")
        let tests = try #require(record["tests"] as? [[String: Any]])
        let byName = Dictionary(tests.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let sweep = try #require(byName.first { $0.key.hasPrefix("The open-loop sweep") }?.value)
        let step = try #require(((sweep["attempts"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])?.first)
        let f0 = try #require((step["measurements"] as? [[String: Any]])?.first { $0["figure"] as? String == "f0" })
        #expect(f0["name"] as? String == "resonance f0 (sweep fit)" && f0["unit"] as? String == "Hz" && f0["verdict"] as? String == "PASS")
        #expect(abs((f0["value"] as? Double ?? 0) - 175) < 1.75, "\(f0)")
        // The deliberate FAIL is one in the record (the Swift test expects it), and the
        // skipped test is a SKIP with its reason.
        #expect(byName.first { $0.key.hasPrefix("A limit the part cannot meet") }?.value["verdict"] as? String == "FAIL")
        let skipped = byName.first { $0.key.hasPrefix("An accelerometer test") }?.value
        #expect(skipped?["verdict"] as? String == "SKIP" && (skipped?["message"] as? String)?.contains("lis3dh") == true)
        let junit = try String(contentsOf: records.appendingPathComponent("hilpackage-sim.junit.xml"), encoding: .utf8)
        #expect(junit.contains("› resonance f0 (sweep fit)\" value=\"17") && junit.contains("<skipped message=\"needs lis3dh"), "\(junit)")
        // The same figures as OpenMetrics, as `hapbridge run --metrics` writes them.
        let metrics = try String(contentsOf: records.appendingPathComponent("hilpackage-sim.metrics.txt"), encoding: .utf8)
        let metricLines = metrics.split(separator: "\n").map(String.init)
        let f0Line = metricLines.first { $0.hasPrefix("hapbridge_hil_f0_hertz{") && $0.contains("figure=\"resonance f0 (sweep fit)\"") } ?? ""
        let sampled: Double? = f0Line.split(separator: " ").last.flatMap { Double(String($0)) }
        let recorded: Double? = f0["value"] as? Double
        #expect(sampled != nil && sampled == recorded, "\(f0Line) against \(String(describing: recorded))\n\(metrics)")
        #expect(metrics.hasSuffix("# EOF\n"), "\(metrics.suffix(200))")
    }
}
