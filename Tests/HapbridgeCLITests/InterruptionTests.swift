import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

@testable import HapbridgeCLI

/// SIGINT, SIGTERM and SIGHUP while a command drives the actuator: the engine (or the
/// bench procedure) stops and the board is flushed at once, the command says why it
/// stopped, writes its record and plot of what played, and exits 128 + N as a shell
/// reports that signal; a second signal while it stops exits at once. SIGTSTP does the
/// same, then suspends; continued, it exits 148. Each through the built executable,
/// signalled as a shell's Ctrl-C, Ctrl-Z or `kill` would.
@Suite struct InterruptionTests {
    static let long = Hapbridge.path("Examples/Beethoven5.ahap")

    @Test(
        "A signal during play on the simulated board stops it, prints the summary with the reason, writes the record and the plot, exits 128 + N",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func signalDuringPlayStopsAndReports(signal: Int32) throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = directory.appendingPathComponent("record.json").path
        let plot = directory.appendingPathComponent("plot.svg").path
        let run = try SignalledRun(["play", Self.long, "--device", "sim", "--realtime", "--record", record, "--plot", plot])
        #expect(run.waitForOutput("playing "), "\(run.err)")
        run.send(signal)
        let status = run.waitForExit()
        let name = Interruption.name(signal)
        #expect(status == 128 + signal, "\(run.err)")
        #expect(run.out.contains("done: ") && run.out.contains("record: \(record)") && run.out.contains("plot: \(plot)"), "\(run.out)")
        #expect(run.err.contains("stopped: interrupted by \(name) after about "), "\(run.err)")
        #expect(run.err.contains("board's queue was flushed"))

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        #expect(json["stopReason"] as? String == "interrupted by \(name)")
        let commands = try #require(json["commands"] as? [[String: Any]])
        let statistics = try #require(json["statistics"] as? [String: Any])
        // The record holds what played: sent minus what STOP_ALL flushed.
        #expect((statistics["sent"] as? Int).map { $0 - (statistics["flushed"] as? Int ?? -1) } == commands.count)
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(XMLParser(data: Data(svg.utf8)).parse() && svg.contains("RTP drive"))
    }

    @Test("A signal during play over USB puts the chip in standby within one link round trip of STOP_ALL, and nothing drives it after")
    func signalOverUSBStopsTheChipAtOnce() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("emulation.jsonl").path
        let record = directory.appendingPathComponent("record.json").path
        // The emulation passes SIGTERM on to COMMAND, as `timeout` or a CI runner sends it.
        let run = try SignalledRun(
            ["emulate", "bridge", "--log", log, "--", Hapbridge.executable, "play", Self.long, "--device", "usb", "--actuator", "pmd-c10-100", "--record", record])
        // Into the pattern: its progress (a line a tenth, on standard error) has passed the first tenth.
        #expect(run.waitForError("ms [##"), "\(run.err)")
        let signalledAt = SignalledRun.monotonicMicroseconds()
        run.send(SIGTERM)
        #expect(run.waitForExit() == 143, "\(run.err)")
        #expect(run.err.contains("stopped: interrupted by SIGTERM"), "\(run.err)")

        let events = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // STOP_ALL: a frame of type 0x06 (magic, length, sequence, type).
        let stopAll = try #require(
            events.first { $0["event"] as? String == "bulk_out" && ($0["bytes"] as? String)?.dropFirst(6).hasPrefix("06") == true },
            "no STOP_ALL reached the board")
        let stopHost = try #require(stopAll["host_us"] as? Int)
        // A bound, not a figure: the signal thread, the engine actor and one bulk OUT on a loaded 2-core machine.
        #expect(stopHost - Int(signalledAt) < 250_000, "STOP_ALL reached the board \(stopHost - Int(signalledAt)) µs after the signal")
        let writes = events.filter { $0["event"] as? String == "i2c" && $0["op"] as? String == "w" }
        let afterStop = writes.filter { ($0["host_us"] as? Int ?? 0) >= stopHost }
        // MODE (0x01) = 0x40: STANDBY, taken by the firmware as it handles the frame.
        let standby = try #require(afterStop.first { $0["bytes"] as? String == "0140" }, "no standby write after STOP_ALL")
        #expect((standby["host_us"] as? Int ?? .max) - stopHost < 2_000)
        // No amplitude after it: RTP_INPUT (0x02) written only as 0.
        let drives = afterStop.filter { ($0["bytes"] as? String)?.hasPrefix("02") == true && $0["bytes"] as? String != "0200" }
        #expect(drives.isEmpty, "RTP writes after STOP_ALL: \(drives)")
    }

    @Test(
        "A signal during calibrate or rom ends the procedure within its wait, stops the actuator, stores nothing and exits 128 + N",
        arguments: [["calibrate"], ["rom", "1"]])
    func signalDuringABenchProcedure(command: [String]) throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("emulation.jsonl").path
        let config = directory.appendingPathComponent("config").path
        let run = try SignalledRun(
            ["emulate", "bridge", "--log", log, "--", Hapbridge.executable] + command + ["--actuator", "pmd-c10-100", "--device", "usb"],
            configHome: config)
        // GO (0x0C) = 1 in auto-calibration mode: the chip is calibrating, for about a second.
        #expect(run.waitForFile(log, toContain: #""bytes":"0c01""#), "\(run.err)")
        run.send(SIGTERM)
        #expect(run.waitForExit() == 143, "\(run.err)")
        #expect(run.out.contains("stopped: interrupted by SIGTERM; the actuator was stopped"), "\(run.out)")
        #expect(!run.out.contains("error: "), "the cut wait is the interruption, not an error: \(run.out)")
        #expect(!run.out.contains("stored for `play`") && !FileManager.default.fileExists(atPath: config + "/hapbridge/calibration"))
        let events = try String(contentsOfFile: log, encoding: .utf8)
        let standby = try #require(events.range(of: #""bytes":"0140""#, options: String.CompareOptions.backwards), "no standby write")
        #expect(!events[standby.upperBound...].contains(#""bytes":"0c01""#), "GO set again after the stop")
    }

    @Test(
        "SIGTSTP (Ctrl-Z) during play on the simulated board stops it, prints the summary, writes the record and the plot, and only then suspends; continued, it exits 148"
    )
    func tstpDuringPlayStopsThenSuspends() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = directory.appendingPathComponent("record.json").path
        let plot = directory.appendingPathComponent("plot.svg").path
        let run = try SignalledRun(["play", Self.long, "--device", "sim", "--realtime", "--record", record, "--plot", plot])
        #expect(run.waitForOutput("playing "), "\(run.err)")
        run.send(SIGTSTP)
        #expect(run.waitUntilStopped(), "\(run.err)")
        // Suspended: everything a stop does is done already.
        #expect(run.out.contains("record: \(record)") && run.out.contains("plot: \(plot)"), "\(run.out)")
        #expect(run.err.contains("stopped: interrupted by SIGTSTP after about "), "\(run.err)")
        #expect(run.err.contains("suspended (SIGTSTP)"), "\(run.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        #expect(json["stopReason"] as? String == "interrupted by SIGTSTP")
        run.send(SIGCONT)
        #expect(run.waitForExit() == 148, "\(run.err)")
    }

    @Test(
        "Ctrl-Z under `emulate bridge` (SIGTSTP to the emulation and its COMMAND): play puts the chip in standby over USB and suspends, then the emulation, a device, suspends after it; continued, the emulation exits with play's 148"
    )
    func tstpUnderTheEmulation() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("emulation.jsonl").path
        let run = try SignalledRun(["emulate", "bridge", "--log", log, "--", Hapbridge.executable, "play", Self.long, "--device", "usb", "--actuator", "pmd-c10-100"])
        #expect(run.waitForError("ms [##"), "\(run.err)")
        let player = try #require(run.children.first, "play is the emulation's child")
        // What a terminal does: the signal to the whole foreground group.
        kill(player, SIGTSTP)
        run.send(SIGTSTP)
        #expect(run.waitUntilStopped(player), "\(run.err)")
        #expect(run.waitUntilStopped(), "the emulation follows its COMMAND: \(run.err)")
        let writes = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "i2c" && $0["op"] as? String == "w" }.compactMap { $0["bytes"] as? String }
        // MODE (0x01) = 0x40 after the last non-zero RTP_INPUT (0x02): in standby while suspended.
        let lastDrive = try #require(writes.lastIndex { $0.hasPrefix("02") && $0 != "0200" })
        #expect(writes.lastIndex(of: "0140").map { $0 > lastDrive } == true, "suspended with the chip driven")
        kill(player, SIGCONT)
        run.send(SIGCONT)
        #expect(run.waitForExit() == 148, "\(run.err)")
        #expect(run.err.contains("stopped: interrupted by SIGTSTP"), "\(run.err)")
    }

    @Test("A second signal while the command is stuck (its standard output a full pipe) exits at once with the signal's status")
    func secondSignalExitsAtOnce() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Standard output a FIFO nobody reads, already full: the command blocks at its
        // first line, where no signal can reach it; the second Ctrl-C is how a user gets
        // out. (A FIFO named as an output file is no such trap: FIFOWaitInterruptionTests.)
        let stuck = try FullFIFO(in: directory)
        let run = try SignalledRun(["play", Self.long, "--device", "sim", "--realtime"], standardOutput: stuck.handle)
        // Its handlers in place, it is on its way to the blocked write; the first
        // signal's own line (standard error is a file) says it was taken.
        #expect(run.waitUntilCatching(SIGINT), "\(run.err)")
        run.send(SIGINT)
        #expect(run.waitForError("SIGINT: stopping the actuator"), "\(run.err)")
        run.send(SIGINT)
        #expect(run.waitForExit(seconds: 10) == 130, "\(run.err)")
        #expect(run.err.contains("SIGINT again: exiting at once"), "\(run.err)")
        withExtendedLifetime(stuck) {}  // its reader held to the end: the process stays stuck, never EPIPE
    }

    // MARK: hapbridge run

    static let simBench = Hapbridge.path("Examples/hil/bench-sim.yaml")
    static let usbBench = Hapbridge.path("Examples/hil/bench-usb.yaml")

    /// A run's outputs, read after it ended.
    struct RunOutputs {
        var record: [String: Any]
        var tests: [[String: Any]]
        var junit: XMLDocument

        init(json: String, junit: String) throws {
            record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
            tests = record["tests"] as? [[String: Any]] ?? []
            self.junit = try XMLDocument(xmlString: try String(contentsOfFile: junit, encoding: .utf8))
        }

        func test(_ name: String) -> [String: Any]? { tests.first { $0["name"] as? String == name } }
        func attempts(_ name: String) -> [[String: Any]] { test(name)?["attempts"] as? [[String: Any]] ?? [] }

        /// The message of the JUnit `<error>` of a test case (on the benches' device "dut").
        func junitError(_ name: String) -> String? {
            let cases = (junit.rootElement()?.elements(forName: "testsuite") ?? []).flatMap { $0.elements(forName: "testcase") }
            return cases.first { $0.attribute(forName: "name")?.stringValue == "\(name) [dut]" }?.elements(forName: "error").first?.attribute(forName: "message")?.stringValue
        }
    }

    /// Whether a board's lock file (`BoardLock`: flock(2)) is free: taken and let go at once.
    static func isFree(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(
        "A signal during a run's step stops it at once: the test under way ERRORs as interrupted (no retry), the rest are not run, and the summary, JSON record, JUnit, plots of what ran are written, the lock released, exit 128 + N",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func signalDuringRunStopsAndReports(signal: Int32) throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try Self.write(
            """
            suite: s
            tests:
              - name: measured first
                steps:
                  - measure: ios.impact.heavy
              - name: long
                retries: 3
                steps:
                  - calibrate: {runs: 1000}
                  - diagnose:
              - name: after
                steps:
                  - diagnose:
            """, "suite.yaml", in: directory)
        let json = directory.appendingPathComponent("run.json").path, junit = directory.appendingPathComponent("run.xml").path
        let plots = directory.appendingPathComponent("plots").path, locks = directory.appendingPathComponent("locks").path
        let run = try SignalledRun(["run", Self.simBench, suite, "--json", json, "--junit", junit, "--plots", plots, "--lock-dir", locks])
        // The first test done, the 1000 calibrations under way (seconds of them).
        #expect(run.waitForError("measured first: PASS"), "\(run.err)")
        run.send(signal)
        #expect(run.waitForExit() == 128 + signal, "\(run.err)")
        let name = Interruption.name(signal), why = "interrupted by \(name)"
        #expect(run.err.contains("3 tests: 1 passed, 0 marginal, 0 failed, 1 errors, 1 skipped; run cut short: \(why)"), "\(run.err)")

        let o = try RunOutputs(json: json, junit: junit)
        #expect(o.record["verdict"] as? String == "ERROR" && o.record["interrupted"] as? String == why, "\(o.record)")
        #expect(o.test("measured first")?["verdict"] as? String == "PASS")
        // The test under way: one attempt (an interruption is not retried), cut in its first step.
        #expect(o.test("long")?["verdict"] as? String == "ERROR" && o.attempts("long").count == 1, "\(o.attempts("long"))")
        #expect(o.test("long")?["message"] as? String == "\(why) during step 1 calibrate ×1000", "\(String(describing: o.test("long")))")
        let steps = o.attempts("long").first?["steps"] as? [[String: Any]] ?? []
        #expect(steps.count == 1 && steps.first?["verdict"] as? String == "ERROR" && steps.first?["message"] as? String == why, "\(steps)")
        #expect(o.test("after")?["verdict"] as? String == "SKIP" && o.test("after")?["message"] as? String == "not run: \(why)")
        #expect(o.junitError("long")?.contains(why) == true, "\(String(describing: o.junitError("long")))")
        #expect(FileManager.default.fileExists(atPath: plots + "/01-measured-first-step1.svg"), "the plot of what ran")
        #expect(Self.isFree(locks + "/sim.lock"), "the board's lock is released")
    }

    @Test("A signal during a run's play step over USB puts the chip in standby within one link round trip of STOP_ALL, and the record says the run was interrupted")
    func signalDuringRunPlayOverUSBStopsTheChip() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try Self.write("suite: s\ntests:\n  - name: long play\n    steps:\n      - play: \(Self.long)\n", "suite.yaml", in: directory)
        let log = directory.appendingPathComponent("emulation.jsonl").path
        let json = directory.appendingPathComponent("run.json").path, junit = directory.appendingPathComponent("run.xml").path
        // The emulation passes SIGTERM on to COMMAND, as `timeout` or a CI runner sends it.
        let run = try SignalledRun(
            ["emulate", "bridge", "--log", log, "--", Hapbridge.executable, "run", Self.usbBench, suite, "--json", json, "--junit", junit,
             "--lock-dir", directory.path])
        // The play under way: an RTP_INPUT (0x02) write of a drive other than 0.
        let driving = try NSRegularExpression(pattern: #""bytes":"02(?!00")"#)
        #expect(
            run.waitUntil { _ in
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                return driving.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }, "\(run.err)")
        let signalledAt = SignalledRun.monotonicMicroseconds()
        run.send(SIGTERM)
        #expect(run.waitForExit() == 143, "\(run.err)")

        let events = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // STOP_ALL: a frame of type 0x06 (magic, length, sequence, type), after the signal.
        let stopAll = try #require(
            events.first {
                $0["event"] as? String == "bulk_out" && ($0["bytes"] as? String)?.dropFirst(6).hasPrefix("06") == true
                    && ($0["host_us"] as? Int ?? 0) >= Int(signalledAt)
            }, "no STOP_ALL reached the board after the signal")
        let stopHost = try #require(stopAll["host_us"] as? Int)
        // A bound, not a figure: the signal's relay, the engine actor and one bulk OUT on a loaded 2-core machine.
        #expect(stopHost - Int(signalledAt) < 250_000, "STOP_ALL reached the board \(stopHost - Int(signalledAt)) µs after the signal")
        let afterStop = events.filter { $0["event"] as? String == "i2c" && $0["op"] as? String == "w" && ($0["host_us"] as? Int ?? 0) >= stopHost }
        let standby = try #require(afterStop.first { $0["bytes"] as? String == "0140" }, "no standby write after STOP_ALL")
        #expect((standby["host_us"] as? Int ?? .max) - stopHost < 2_000)
        let drives = afterStop.filter { ($0["bytes"] as? String)?.hasPrefix("02") == true && $0["bytes"] as? String != "0200" }
        #expect(drives.isEmpty, "RTP writes after STOP_ALL: \(drives)")

        let o = try RunOutputs(json: json, junit: junit)
        #expect(o.record["interrupted"] as? String == "interrupted by SIGTERM")
        #expect((o.test("long play")?["message"] as? String)?.hasPrefix("interrupted by SIGTERM during step 1 play ") == true, "\(o.tests)")
        #expect(o.junitError("long play")?.contains("interrupted by SIGTERM") == true)
    }

    @Test("A signal during a run's wait step (on a board, where it is waited) ends it at once, exit 128 + N")
    func signalDuringRunWaitStep() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try Self.write("suite: s\ntests:\n  - name: ten minutes\n    steps:\n      - wait: 600000\n", "suite.yaml", in: directory)
        let json = directory.appendingPathComponent("run.json").path, junit = directory.appendingPathComponent("run.xml").path
        let run = try SignalledRun(
            ["emulate", "bridge", "--", Hapbridge.executable, "run", Self.usbBench, suite, "--json", json, "--junit", junit, "--lock-dir", directory.path])
        #expect(run.waitForError("health dut (usb:1-1): OK"), "\(run.err)")
        run.send(SIGHUP)
        // Far less than the ten minutes: the bound is the test's, not a figure.
        #expect(run.waitForExit(seconds: 60) == 129, "\(run.err)")
        let o = try RunOutputs(json: json, junit: junit)
        #expect(o.test("ten minutes")?["message"] as? String == "interrupted by SIGHUP during step 1 wait 600000 ms", "\(o.tests)")
    }

    @Test("A second signal while the run is stuck (its standard error a full pipe, the board locked) exits at once, and the board's lock goes with the process")
    func secondSignalDuringRunReleasesTheLock() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try Self.write("suite: s\ntests:\n  - name: a\n    steps:\n      - diagnose:\n", "suite.yaml", in: directory)
        let locks = directory.appendingPathComponent("locks").path
        // Standard error full: the run blocks at its first progress line, holding the
        // lock, and the first signal's own line cannot be written either (it is dropped
        // rather than blocking the reaction).
        let stuck = try FullFIFO(in: directory)
        let run = try SignalledRun(["run", Self.simBench, suite, "--lock-dir", locks], standardError: stuck.handle)
        let lock = locks + "/sim.lock"
        #expect(run.waitForFile(lock, toContain: "pid \(run.process.processIdentifier)\n"), "the run took the lock")
        // Two different signals, so that they cannot merge into one before the first is
        // taken; their handlers may run on two threads at once, so either may be first.
        run.send(SIGINT)
        run.send(SIGTERM)
        let status = run.waitForExit(seconds: 30)
        #expect(status == 130 || status == 143, "\(String(describing: status))")
        #expect(Self.isFree(lock), "the kernel released the lock with the process")
        withExtendedLifetime(stuck) {}  // its reader held to the end: the process stays stuck, never EPIPE
    }
}
