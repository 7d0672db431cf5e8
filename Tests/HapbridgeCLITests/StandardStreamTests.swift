import Foundation
import Testing

@testable import HapbridgeCLI

/// Output that cannot be delivered is a failure (status 1), never a trap and never
/// a success, whichever command and whichever way the stream fails.
@Suite struct StandardStreamTests {
    static let commands: [[String]] = [
        ["render", Hapbridge.path("Examples/SOS.ahap")],
        ["render", "impact.heavy", "-f", "json"],
        ["library", "list", "--why"],
        ["library", "export", "watchos.retry"],
        ["play", "impact.heavy"],
        ["calibrate", "--actuator", "pmd-c10-100"],
        ["rom", "--list"],
        ["play", "--help"],
    ]

    @Test("Standard output on a full disk (> /dev/full) exits 1 and says so", arguments: commands)
    func fullDisk(_ arguments: [String]) throws {
        let run = try Hapbridge.run(arguments, stdout: .devFull)
        #expect(run.signal == nil && run.status == 1, "\(run.err)")
        #expect(run.err.contains("cannot write to standard output: No space left on device"))
    }

    @Test("A closed standard output (>&-) exits 1, and no file the command opens takes its place", arguments: commands)
    func closedStdout(_ arguments: [String]) throws {
        let run = try Hapbridge.run(arguments, stdout: .closed)
        #expect(run.signal == nil && run.status == 1, "\(run.err)")
        #expect(run.err.contains("cannot write to standard output: Bad file descriptor"))
    }

    @Test("A pipe nobody reads, SIGPIPE ignored, exits 1", arguments: commands)
    func brokenPipe(_ arguments: [String]) throws {
        let run = try Hapbridge.run(arguments, stdout: .brokenPipe)
        #expect(run.signal == nil && run.status == 1, "\(run.err)")
        #expect(run.err.contains("cannot write to standard output: Broken pipe"))
    }

    @Test("A closed standard error exits 1 when the command has something to say on it")
    func closedStderr() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // render -o reports "wrote …" on standard error; an error message goes there too.
        for arguments in [["render", "impact.heavy", "-o", directory.appendingPathComponent("x.svg").path], ["render", "no-such-pattern"]] {
            let run = try Hapbridge.run(arguments, closeStderr: true)
            #expect(run.signal == nil && run.status == 1, "\(arguments)")
        }
    }
}
