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
            ["emulate", "bridge", "--log", log, "--", Hapbridge.executable, "play", Self.long, "--device", "usb", "--record", record])
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
        let run = try SignalledRun(["emulate", "bridge", "--log", log, "--", Hapbridge.executable, "play", Self.long, "--device", "usb"])
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

    @Test("A second signal while the command stops exits at once with the signal's status")
    func secondSignalExitsAtOnce() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A plot into a FIFO nobody reads: stopping blocks in writing it, as on a stuck
        // network file system; the second Ctrl-C is how a user gets out.
        let fifo = directory.appendingPathComponent("plot.svg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try SignalledRun(["play", Self.long, "--device", "sim", "--realtime", "--plot", fifo])
        #expect(run.waitForOutput("playing "), "\(run.err)")
        run.send(SIGINT)
        #expect(run.waitForOutput("peak acceleration"), "\(run.err)")
        run.send(SIGINT)
        #expect(run.waitForExit(seconds: 10) == 130, "\(run.err)")
        #expect(run.err.contains("SIGINT again: exiting at once"), "\(run.err)")
    }
}
