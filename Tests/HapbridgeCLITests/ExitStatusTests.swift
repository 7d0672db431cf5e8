import Foundation
import Testing

@testable import HapbridgeCLI

/// Exit statuses and error messages: a usage error is 2 with the usage text, a
/// failure at run time is 1 with one line, and what was measured is never lost.
@Suite struct ExitStatusTests {
    static let sos = Hapbridge.path("Examples/SOS.ahap")

    @Test("A command line ArgumentParser rejects exits 2 with the usage text")
    func usageErrorsExitTwo() throws {
        for arguments in [["render"], ["render", Self.sos, "--bogus"], ["render", Self.sos, "--rate", "0"], ["play", "impact.heavy", "--playback-rate", "nan"], ["nosuchcommand"]] {
            let run = try Hapbridge.run(arguments)
            #expect(run.signal == nil && run.status == 2, "\(arguments): \(run.err)")
            #expect(run.err.contains("Usage: hapbridge"), "\(arguments)")
        }
    }

    @Test("A failure at run time exits 1 with one line and no usage text")
    func runtimeFailuresAreOneLine() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [[String]] = [
            ["render", "no-such-pattern"],
            ["render", Self.sos, "-o", directory.path],
            ["render", Self.sos, "-o", directory.appendingPathComponent("missing/x.svg").path],
            ["calibrate", "--actuator", "no-such-profile"],
            ["diagnose", "--actuator", directory.path],
            ["play", "impact.heavy", "--actuator", "no-such-profile"],
        ]
        for arguments in cases {
            let run = try Hapbridge.run(arguments)
            #expect(run.signal == nil && run.status == 1, "\(arguments): \(run.err)")
            #expect(run.errLines.count == 1, "\(arguments): \(run.err)")
            #expect(run.err.hasPrefix("Error: ") && !run.err.contains("Usage:"), "\(arguments): \(run.err)")
        }
    }

    @Test("A profile that cannot be loaded is one line naming the names available, status 1")
    func profileErrorsAreOneLine() throws {
        let run = try Hapbridge.run(["calibrate", "--actuator", "no-such-profile"])
        #expect(run.status == 1)
        #expect(run.errLines.count == 1)
        #expect(run.err.hasPrefix("Error: no actuator profile") && run.err.contains("no-such-profile"))
        #expect(run.err.contains("available: ") && run.err.contains("pmd-c10-100"))
    }

    @Test("Help is status 0 on standard output")
    func helpExitsZero() throws {
        let run = try Hapbridge.run(["play", "--help"])
        #expect(run.status == 0 && run.out.contains("USAGE: hapbridge play") && run.err.isEmpty)
        let root = try Hapbridge.run(["--help"])
        let words = root.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(root.status == 0 && words.contains(ExitStatus.summary))
    }

    @Test("--experimental-dump-help is whole JSON however long a command's help grows (package-deb's man pages come from it): help is not cut at the line cap")
    func dumpedHelpIsWholeJSON() throws {
        let run = try Hapbridge.run(["--experimental-dump-help"])
        #expect(run.status == 0 && run.err.isEmpty, "\(run.err)")
        let longest = run.out.split(separator: "\n").map(\.count).max() ?? 0
        #expect(longest > 0, "no help dumped")
        let json = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        let command = json?["command"] as? [String: Any]
        #expect(command?["commandName"] as? String == "hapbridge" && (command?["subcommands"] as? [Any])?.isEmpty == false, "longest line \(longest)")
    }

    @Test("No help text has a run of spaces inside a sentence (a joined source line left its indentation in flash's discussion and its man page)")
    func helpHasNoSpaceRunsInsideSentences() throws {
        let run = try Hapbridge.run(["--experimental-dump-help"])
        let json = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        var found: [String] = []
        func walk(_ command: [String: Any], _ path: String) {
            var texts = ["abstract", "discussion"].compactMap { command[$0] as? String }
            texts += (command["arguments"] as? [[String: Any]] ?? []).compactMap { $0["abstract"] as? String }
            for line in texts.flatMap({ $0.split(separator: "\n") }) where line.contains(/\S {3,}\S/) {
                found.append("\(path): \(line.prefix(100))")
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + " " + (sub["commandName"] as? String ?? "?"))
            }
        }
        walk(json?["command"] as? [String: Any] ?? [:], "hapbridge")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("calibrate checks the plot's location before calibrating")
    func calibrateChecksThePlotFirst() throws {
        let run = try Hapbridge.run(["calibrate", "--actuator", "pmd-c10-100", "--plot", "/no/such/directory/cal.svg"])
        #expect(run.status == 1)
        #expect(run.out.isEmpty, "nothing measured before the location was checked")
        #expect(run.err == "Error: cannot write the plot to /no/such/directory/cal.svg: no such directory /no/such/directory\n")
    }

    @Test("calibrate prints its results before writing the plot, so a failed write loses nothing")
    func calibratePrintsResultsBeforeThePlot() throws {
        // /dev/full passes the location check (a device, written through: never
        // replaced, which the first line makes sure of) and fails the write itself.
        guard case .writeThrough = try OutputFile("/dev/full", purpose: "plot").destination(of: "/dev/full") else {
            Issue.record("/dev/full must be written through")
            return
        }
        let run = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100", "--plot", "/dev/full"])
        #expect(run.status == 1)
        #expect(run.out.contains("auto-calibration: PASS") && run.out.contains("store and write back after a reset"))
        #expect(run.err == "Error: cannot write the plot to /dev/full: No space left on device\n")
    }

    @Test("No exit status means two things: flash's 5–8 and run's 9–11 are disjoint from each other and from the statuses every command shares")
    func noStatusHasTwoMeanings() {
        let flash: [Int32] = [FlashCommand.imageRefused, FlashCommand.noBootloader, FlashCommand.verifyFailed, FlashCommand.interrupted]
        let shared = ExitStatus.allCases.map(\.rawValue)
        #expect(Set(flash).count == flash.count)
        #expect(Set(flash).isDisjoint(with: shared), "flash's \(flash) against \(shared)")
        #expect(ExitStatus.runFailed.rawValue == 11 && ExitStatus.runError.rawValue == 9 && ExitStatus.boardLocked.rawValue == 10)
    }

    @Test("The README's exit-code table lists every status the CLI uses")
    func readmeDocumentsEveryStatus() throws {
        let readme = try String(contentsOf: Hapbridge.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Exit codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        // A row's first cell lists its statuses ("| 9, 10, 11 | `run` …").
        let listed = Set(
            section.split(separator: "\n").compactMap { row -> [String]? in
                let cells = row.split(separator: "|", omittingEmptySubsequences: false)
                return cells.count > 2 ? cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : nil
            }.joined())
        for status in ExitStatus.allCases {
            #expect(listed.contains("\(status.rawValue)"), "README's Exit codes section lacks \(status.rawValue)")
        }
    }
}
