import Foundation
import Testing

/// What a script asks of its bench, and what `run`'s options ask of the machine, are
/// checked before anything runs: a slip is exit 2 (or 1 for an output path) with the
/// file, line and key, not an ERROR found mid-run (exit 9) or a failure after it.
@Suite("hapbridge run: a script's patterns, sweeps and images, and the outputs, checked before the run")
struct RunLoadChecksTests {
    static let bench = "bench: b\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100}\n  - {name: erm, address: sim, actuator: pmd-307-103}\n"

    /// Runs `script` (steps under one test on `device`) and returns the run.
    func run(steps: String, device: String = "dut", extra: [String] = [], files: [String: String] = [:]) throws -> (run: ProcessRun, dir: String) {
        let dir = try temporaryDirectory()
        try Self.bench.write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: t\n    device: \(device)\n    steps:\n\(steps)".write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        for (name, text) in files { try text.write(toFile: "\(dir)/\(name)", atomically: true, encoding: .utf8) }
        return (try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/t.yaml", "--lock-dir", dir] + extra), dir)
    }

    @Test("A pattern file that is not there is refused at its line and key (exit 2), before the health check")
    func missingPattern() throws {
        let (r, dir) = try run(steps: "      - play: ios.impact.light\n      - measure: patterns/missing.ahap\n")
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr == "Error: \(dir)/t.yaml:7: tests[0].steps[1].measure: no pattern file \(dir)/patterns/missing.ahap and no built-in haptic named \"patterns/missing.ahap\" (see `hapbridge library`)\n", "\(r.stderr)")
    }

    @Test("A misspelt built-in haptic is refused with the name it is nearest (did you mean), full or short")
    func misspeltBuiltIn() throws {
        let full = try run(steps: "      - play: ios.impact.hevy\n").run
        #expect(full.status == 2 && full.stderr.contains("tests[0].steps[0].play: no pattern file") && full.stderr.contains("(did you mean \"ios.impact.heavy\"?)"), "\(full.stderr)")
        let short = try run(steps: "      - measure: notification.sucess\n").run
        #expect(short.status == 2 && short.stderr.contains("(did you mean \"notification.success\"?)"), "\(short.stderr)")
        let far = try run(steps: "      - play: nothing-like-it\n").run
        #expect(far.status == 2 && !far.stderr.contains("did you mean"), "\(far.stderr)")
    }

    @Test("A pattern file that does not read as a pattern is refused at load, naming the file and the loader's rule")
    func brokenPattern() throws {
        let (r, dir) = try run(steps: "      - play: broken.ahap\n", files: ["broken.ahap": "{\"Pattern\": [ {\"Event\": 3} ]}"])
        #expect(r.status == 2 && r.stderr.hasPrefix("Error: \(dir)/t.yaml:6: tests[0].steps[0].play: \(dir)/broken.ahap: "), "\(r.stderr)")
    }

    @Test("A sweep whose range holds no OL_LRA_PERIOD code, or that runs on an ERM, is refused at load; the defaults come from the device's actuator")
    func sweepRange() throws {
        let narrow = try run(steps: "      - sweep: {from: 5000, to: 5010}\n").run
        #expect(narrow.status == 2 && narrow.stderr.contains("tests[0].steps[0].sweep: no OL_LRA_PERIOD code lies between from 5000 Hz and to 5010 Hz"), "\(narrow.stderr)")
        // Only `from` given: `to` is the profile's default (1.4 × its 175 Hz), below it.
        let defaulted = try run(steps: "      - sweep: {from: 300}\n").run
        #expect(defaulted.status == 2 && defaulted.stderr.contains("tests[0].steps[0].sweep.from: from 300 Hz is not below to 245 Hz (the default for Precision Microdrives C10-100"), "\(defaulted.stderr)")
        let erm = try run(steps: "      - sweep:\n", device: "erm").run
        #expect(erm.status == 2 && erm.stderr.contains("tests[0].steps[0].sweep: ") && erm.stderr.contains("is not an LRA"), "\(erm.stderr)")
    }

    @Test("A flash step's image that is not there is refused at load (the sim skips flashing, but the script is wrong)")
    func missingImage() throws {
        let (r, dir) = try run(steps: "      - flash: build/nothing.hex\n")
        #expect(r.status == 2 && r.stderr.hasPrefix("Error: \(dir)/t.yaml:6: tests[0].steps[0].flash: ") && r.stderr.contains("nothing.hex"), "\(r.stderr)")
    }

    @Test("An actuator profile that is not there is refused at the bench's line and key")
    func missingProfile() throws {
        let dir = try temporaryDirectory()
        try "bench: b\ndevices:\n  - name: dut\n    address: sim\n    actuator: no-such-part\n".write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: t\n    steps:\n      - wait: 0\n".write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/t.yaml", "--lock-dir", dir])
        #expect(r.status == 2 && r.stderr.hasPrefix("Error: \(dir)/bench.yaml:5: devices[0].actuator: "), "\(r.stderr)")
    }

    @Test("--json and --junit to one destination (both -, - and /dev/stdout, one file twice) is a usage error; /dev/null takes both")
    func oneDestination() throws {
        for pair in [["-", "-"], ["-", "/dev/stdout"], ["same.out", "same.out"]] {
            let r = try run(steps: "      - wait: 0\n", extra: ["--json", pair[0], "--junit", pair[1]]).run
            #expect(r.status == 2 && r.stderr.contains("--json and --junit name the same destination") && r.stdout.isEmpty, "\(pair): \(r.stderr)")
        }
        let null = try run(steps: "      - wait: 0\n", extra: ["--json", "/dev/null", "--junit", "/dev/null"]).run
        #expect(null.status == 0, "\(null.stderr)")
    }

    @Test("--plots naming a file is refused before anything runs; a directory that is not there yet is made first")
    func plotsDirectory() throws {
        let (r, dir) = try run(steps: "      - play: ios.impact.light\n", extra: ["--plots", "/dev/null"])
        #expect(r.status == 1 && r.stderr.hasPrefix("Error: --plots /dev/null: not a directory") && !r.stderr.contains("health"), "\(r.stderr)")
        let made = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/t.yaml", "--lock-dir", dir, "--plots", "\(dir)/a/b/plots"])
        #expect(made.status == 0 && FileManager.default.fileExists(atPath: "\(dir)/a/b/plots/01-t-step1.svg"), "\(made.stderr)")
    }

    @Test("A diagnose and a calibration the part fails are FAILs with the procedure's own finding (its typed ending), not a line picked from its report")
    func proceduresFail() throws {
        let dir = try temporaryDirectory()
        try "bench: open\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100, simulate: {fault: open}}\n".write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: d\n    steps:\n      - diagnose:\n  - name: c\n    steps:\n      - calibrate: {runs: 2}\n"
            .write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/t.yaml", "--lock-dir", dir, "--json", "\(dir)/r.json"])
        #expect(r.status == 11, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/r.json"))) as? [String: Any])
        let tests = record["tests"] as? [[String: Any]] ?? []
        #expect(tests.map { $0["verdict"] as? String } == ["FAIL", "FAIL"])
        let diagnose = tests.first?["message"] as? String ?? ""
        #expect(diagnose.hasPrefix("step 1 diagnose: diagnostic: FAIL (DIAG_RESULT = 1, STATUS 0x") && diagnose.hasSuffix("actuator open, shorted, or an LRA that does not resonate"), "\(diagnose)")
        let calibrate = tests.last?["message"] as? String ?? ""
        #expect(calibrate == "step 1 calibrate ×2: auto-calibration failed 2 of 2 run(s): auto-calibration: FAIL (DIAG_RESULT = 1): actuator open, shorted, of the wrong type or wrong rated voltage", "\(calibrate)")
    }
}
