import Foundation
import Testing

@testable import HapbridgeCLI

/// An output that is a FIFO nobody reads: opening it for writing waits for a reader, as
/// a shell's redirection does. That wait must not leave a signal unheard: the first
/// SIGINT, SIGTERM or SIGHUP ends it with one line naming the FIFO, and the command
/// exits 128 + N (the actuator, where there is one, stopped long before). Each through
/// the built executable, signalled as `kill` would.
@Suite struct FIFOWaitInterruptionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        /// The command, with the FIFO appended as its output's value.
        var command: [String]
        /// What the output is called in the message ("record", "plot", "--log").
        var what: String
        /// On standard output (or standard error, for an emulation) once the work is done
        /// and the output is next.
        var marker: String
        var markerOnStandardError = false
        var signal: Int32
        var testDescription: String { "\(command.prefix(3).joined(separator: " ")) … \(command.last ?? "") FIFO, \(Interruption.name(signal))" }
    }

    static let cases = [
        Case(command: ["play", "ios.impact.heavy", "--device", "sim", "--record"], what: "cannot write the record to", marker: "peak acceleration", signal: SIGINT),
        Case(command: ["play", "ios.impact.heavy", "--device", "sim", "--plot"], what: "cannot write the plot to", marker: "peak acceleration", signal: SIGTERM),
        Case(
            command: ["calibrate", "--actuator", "pmd-c10-100", "--device", "sim", "--no-save", "--plot"], what: "cannot write the plot to",
            marker: "store and write back", signal: SIGHUP),
        Case(command: ["emulate", "ft232h", "--log"], what: "--log", marker: "ft232h: chip at the end", markerOnStandardError: true, signal: SIGINT),
        Case(command: ["emulate", "dfu", "--dump"], what: "--dump", marker: "dfu: ", markerOnStandardError: true, signal: SIGTERM),
    ]

    @Test("A signal while an output waits for its FIFO's reader ends the wait: one line naming the FIFO, exit 128 + N", arguments: cases)
    func signalEndsTheWaitForAReader(_ c: Case) throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("out.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let emulated = c.command.first == "emulate"
        let run = try SignalledRun(c.command + [fifo] + (emulated ? ["--", "true"] : []))
        #expect(c.markerOnStandardError ? run.waitForError(c.marker) : run.waitForOutput(c.marker), "\(run.out)\n\(run.err)")
        // Before or in the wait for a reader: either way the signal ends it.
        run.send(c.signal)
        #expect(run.waitForExit() == 128 + c.signal, "\(run.err)")
        let name = Interruption.name(c.signal)
        let line = run.err.split(separator: "\n").first { $0.hasPrefix("Error: ") }.map(String.init) ?? ""
        #expect(line.contains("\(c.what) \(fifo): no reader on the FIFO") && line.contains("interrupted by \(name)"), "\(run.err)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "it stays a FIFO")
    }

    @Test("A FIFO with a reader is written as before: the signal-aware wait changes nothing when one comes")
    func aReaderStillGetsTheData() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("record.fifo").path, received = directory.appendingPathComponent("received").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reader comes late, after the play: the writer has been polling for it.
        let run = try Shell.run(
            "\"$HB\" play ios.impact.heavy --device sim --record \(Shell.quote(fifo)) & p=$!; "
                + "sleep 0.3; cat \(Shell.quote(fifo)) >\(Shell.quote(received)); wait $p")
        #expect(run.status == 0, "\(run)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: received))) as? [String: Any]
        #expect(json?["schema"] as? String == "hapbridge-play-record/1", "\(String(describing: json))")
    }
}
