import Foundation
import TestSupport
import Testing

/// `hapbridge run`'s rules on small scripts of their own, through the built executable
/// on the simulated board (virtual time: nothing here waits for hardware).
@Suite("hapbridge run: timeouts, retries, repeats, health check")
struct RunnerBehaviourTests {
    struct Outcome {
        var run: ProcessRun
        var record: [String: Any]
        var tests: [[String: Any]] { record["tests"] as? [[String: Any]] ?? [] }
    }

    func run(bench: String = "Examples/hil/bench-sim.yaml", benchText: String? = nil, script: String, extra: [String] = []) throws -> Outcome {
        let dir = try temporaryDirectory()
        var benchPath = Repo.path(bench)
        if let benchText {
            benchPath = "\(dir)/bench.yaml"
            try benchText.write(toFile: benchPath, atomically: true, encoding: .utf8)
        }
        try script.write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        let r = try runProcess(Repo.hapbridge, ["run", benchPath, "\(dir)/t.yaml", "--json", "\(dir)/r.json", "--lock-dir", dir] + extra)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/r.json")))
        return Outcome(run: r, record: try #require(json as? [String: Any], "\(r.stderr)"))
    }

    func attempts(_ t: [String: Any]) -> [[String: Any]] { t["attempts"] as? [[String: Any]] ?? [] }

    @Test("An ERROR is retried `retries` times, every attempt recorded with its reason; a FAIL is not retried")
    func retries() throws {
        let o = try run(
            script: """
                suite: s
                tests:
                  - name: vanishing
                    retries: 2
                    repeats: 3
                    steps:
                      - unplug:
                      - play: ios.impact.light
                  - name: failing
                    retries: 2
                    steps:
                      - measure: ios.impact.heavy
                        limits: [{figure: rise, unit: ms, high: 1}]
                """)
        #expect(o.run.status == 9)
        let a = attempts(o.tests[0])
        #expect(a.map { $0["reason"] as? String } == ["first", "retry after ERROR", "retry after ERROR"])
        #expect(a.allSatisfy { $0["verdict"] as? String == "ERROR" })
        #expect(attempts(o.tests[1]).count == 1 && o.tests[1]["verdict"] as? String == "FAIL")
    }

    @Test("A FAIL is repeated `repeats` times; FAIL without ERROR exits 11 (8 is flash's)")
    func repeats() throws {
        let o = try run(
            script: """
                suite: s
                tests:
                  - name: failing
                    repeats: 2
                    steps:
                      - measure: ios.impact.heavy
                        limits: [{figure: rise, unit: ms, high: 1}]
                """)
        #expect(o.run.status == 11)
        #expect(attempts(o.tests[0]).map { $0["reason"] as? String } == ["first", "repeat after FAIL", "repeat after FAIL"])
    }

    @Test("A step past its own timeout is an ERROR that says which limit it hit; the next test goes on")
    func stepTimeout() throws {
        let o = try run(
            script: """
                suite: s
                tests:
                  - name: slow
                    steps:
                      - calibrate: {runs: 200}
                        timeout: 0.001
                  - name: after
                    steps:
                      - diagnose:
                """)
        #expect(o.run.status == 9)
        #expect(o.tests[0]["verdict"] as? String == "ERROR")
        #expect((o.tests[0]["message"] as? String)?.contains("timed out after 0.001 s (the step 0.001 s limit)") == true, "\(o.tests[0])")
        #expect(o.tests[1]["verdict"] as? String == "PASS")
    }

    @Test("Past the run's --timeout the step under way is an ERROR and the tests after it are not run")
    func runTimeout() throws {
        let o = try run(
            script: """
                suite: s
                tests:
                  - name: long
                    steps:
                      - calibrate: {runs: 500}
                  - name: never
                    steps:
                      - diagnose:
                """, extra: ["--timeout", "0.05"])
        #expect(o.run.status == 9)
        #expect((o.tests[0]["message"] as? String)?.contains("(the run 0.05 s limit)") == true, "\(o.tests[0])")
        #expect((o.tests[1]["message"] as? String)?.hasPrefix("not run: the run's timeout (0.05 s) passed") == true, "\(o.tests[1])")
        #expect((o.record["aborted"] as? String)?.contains("timeout") == true)
    }

    @Test("A value inside a limit's marginal band is MARGINAL, and the run still exits 0")
    func marginal() throws {
        let o = try run(
            script: """
                suite: s
                tests:
                  - name: close to the limit
                    steps:
                      - measure: ios.impact.heavy
                        limits: [{figure: rise, unit: ms, high: 11.5, marginal: 1}]
                """)
        #expect(o.run.status == 0, "\(o.run.stderr)")
        #expect(o.tests[0]["verdict"] as? String == "MARGINAL")
    }

    @Test("A device that fails the health check stops the run before any test: every test ERROR, not run, exit 9")
    func healthCheck() throws {
        let o = try run(
            benchText: """
                bench: broken
                devices:
                  - name: dut
                    address: sim
                    actuator: pmd-c10-100
                    simulate: {fault: absent}
                """,
            script: "suite: s\ntests:\n  - name: a\n    steps:\n      - diagnose:\n")
        #expect(o.run.status == 9)
        #expect(o.record["aborted"] as? String != nil && (o.record["aborted"] as? String)?.contains("health check failed on dut") == true)
        #expect(o.tests[0]["verdict"] as? String == "ERROR" && attempts(o.tests[0]).isEmpty)
        let device = (o.record["devices"] as? [[String: Any]])?.first
        #expect(device?["healthy"] as? Bool == false && device?["serialNumber"] as? String == "SIMULATED")
    }

    /// A pattern that changes its drive every 2 ms for 1 s: the deep stream keeps the
    /// board's queue full, so a board that stalls falls behind it.
    static let denseSteps: String = {
        let events = (0..<500).map { i in
            #"{"Event": {"Time": \#(Double(i) * 0.002), "EventType": "HapticContinuous", "EventDuration": 0.002, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(i % 2 == 0 ? 1 : 0.6)}]}}"#
        }
        return #"{"Version": 1, "Pattern": ["# + events.joined(separator: ", ") + "]}"
    }()

    @Test("A play that ran late (the board fell behind: underruns) is an ERROR naming the counts, not a PASS, so `retries` apply; its figures are kept")
    func latePlayIsAnError() throws {
        let dir = try temporaryDirectory()
        try Self.denseSteps.write(toFile: "\(dir)/steps.ahap", atomically: true, encoding: .utf8)
        let o = try run(
            benchText: "bench: stalling\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100, simulate: {fault: timer-stall}}\n",
            script: """
                suite: s
                tests:
                  - name: late
                    retries: 1
                    steps:
                      - measure: \(dir)/steps.ahap
                        limits: [{figure: peak, unit: g, low: 0.01}]
                """)
        #expect(o.run.status == 9, "\(o.run.stderr)")
        let a = attempts(o.tests[0])
        #expect(a.map { $0["reason"] as? String } == ["first", "retry after ERROR"], "\(a)")
        for attempt in a {
            let step = (attempt["steps"] as? [[String: Any]])?.first ?? [:]
            let message = step["message"] as? String ?? ""
            #expect(step["verdict"] as? String == "ERROR", "\(step)")
            #expect(
                message.range(of: #"^played late: \d+ commands? late, [1-9]\d* underruns? \(the figures are not trustworthy\)$"#, options: .regularExpression) != nil,
                "\(message)")
            // What it measured is still in the record, beside the ERROR.
            let peak = (step["measurements"] as? [[String: Any]])?.first
            #expect(peak?["value"] as? Double != nil, "\(step)")
        }
    }

    @Test("A play the chip's fault stopped (over-current) FAILs, the part's verdict: `repeats` apply, `retries` do not")
    func chipFaultDuringPlayIsAFail() throws {
        let o = try run(
            benchText: "bench: shorted\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100, simulate: {fault: over-current}}\n",
            script: "suite: s\ntests:\n  - name: p\n    retries: 2\n    repeats: 1\n    steps:\n      - play: ios.notification.success\n")
        #expect(o.run.status == 11, "\(o.run.stderr)")
        #expect(attempts(o.tests[0]).map { $0["reason"] as? String } == ["first", "repeat after FAIL"])
        #expect((o.tests[0]["message"] as? String)?.hasSuffix("stopped before the pattern's end: chip fault: over-current") == true, "\(o.tests[0])")
    }

    @Test("Paths in a bench file and a script resolve beside the file that names them, however the files are named (`run bench.yaml suite.yaml`, from their directory, from / and from its parent), never against /")
    func relativePathsResolveBesideTheirFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let name = (dir as NSString).lastPathComponent
        let parent = (dir as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: "\(dir)/profiles", withIntermediateDirectories: true)
        // A profile of its own id, so the record shows which file was read.
        let profile = try String(contentsOfFile: Repo.path("Hardware/actuators/pmd-c10-100.json"), encoding: .utf8)
        try profile.replacingOccurrences(of: "\"id\": \"pmd-c10-100\"", with: "\"id\": \"bench-lra\"")
            .write(toFile: "\(dir)/profiles/bench-lra.json", atomically: true, encoding: .utf8)
        try Self.denseSteps.write(toFile: "\(dir)/steps.ahap", atomically: true, encoding: .utf8)
        try "bench: relative\ndevices:\n  - {name: dut, address: sim, actuator: profiles/bench-lra.json}\n"
            .write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: a\n    steps:\n      - play: steps.ahap\n".write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        for (directory, bench, script) in [(dir, "bench.yaml", "t.yaml"), ("/", dir + "/bench.yaml", dir + "/t.yaml"), (parent, name + "/bench.yaml", name + "/t.yaml")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Repo.hapbridge)
            p.arguments = ["run", bench, script, "--lock-dir", dir, "--json", "\(dir)/record.json"]
            p.currentDirectoryURL = URL(fileURLWithPath: directory)
            let isolated = TestEnvironment.isolated()
            defer { isolated.cleanup() }
            p.environment = isolated.environment
            let err = Pipe()
            p.standardError = err
            try p.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "from \(directory): \(text)")
            let record = (try? String(contentsOfFile: "\(dir)/record.json", encoding: .utf8)) ?? ""
            #expect(record.contains("\"actuator\": \"bench-lra\""), "from \(directory), the profile was not read from \(dir)/profiles: \(record.prefix(400))")
        }
    }
}
