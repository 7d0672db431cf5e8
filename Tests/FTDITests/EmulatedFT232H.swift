import Foundation
import Testing
import TestSupport

/// Runs `hapbridge emulate ft232h` as a user would: the built CLI, a real COMMAND (the
/// ftdi-probe, python3 with pyftdi), its output and exit status. The only clock is a
/// guard against a hang.
enum EmulatedFT232H {
    static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    static let hapbridge = products + "/hapbridge"
    static let probe = products + "/ftdi-probe"
    static let hangGuardSeconds: Double = 120

    struct Run: CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String

        /// `play` ran the pattern to its end with every command sent on time: exit 0, or
        /// 4 where the only lateness is the board's underruns. The hosted core's clock is
        /// the host's, so how late a write leaves is the host's wake-up, which a test on
        /// a shared machine cannot promise (a benchmark's figure: EngineBenchmarks
        /// --ft232h-only); every command sent on time and none refused it can.
        var playedToTheEnd: Bool {
            (status == 0 || (status == 4 && errors.contains("played late: ") && !errors.contains("sent after their stamps")))
                && output.contains(" commands, 0 late, ")
        }

        /// The "kind key=value ..." lines of one kind, as dictionaries.
        func records(_ kind: String) -> [[String: String]] {
            output.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                guard words.first == kind else { return nil }
                var fields: [String: String] = [:]
                for w in words.dropFirst() {
                    guard let eq = w.firstIndex(of: "=") else { continue }
                    fields[String(w[..<eq])] = String(w[w.index(after: eq)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
                return fields
            }
        }

        func record(_ kind: String) -> [String: String] { records(kind).first ?? [:] }

        /// The whole line of the first record of `kind`.
        func line(_ kind: String) -> String? {
            output.split(separator: "\n").first { $0.hasPrefix(kind + " ") }.map(String.init)
        }

        var description: String { "exit \(status)\nstdout:\n\(output)\nstderr:\n\(errors)" }
    }

    /// `hapbridge emulate ft232h OPTIONS -- COMMAND`.
    static func run(_ options: [String] = [], _ command: [String], environment: [String: String] = [:]) throws -> Run {
        let r = try BoundedProcess.run(
            hapbridge, ["emulate", "ft232h"] + options + ["--"] + command,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, hangGuardSeconds: hangGuardSeconds)
        if r.hung { Issue.record("hung for \(Int(hangGuardSeconds)) s: \(command.joined(separator: " "))") }
        return Run(status: r.status, output: r.output, errors: r.errors)
    }

    /// `ftdi-probe ARGS` under the emulation.
    static func probe(_ arguments: [String], options: [String] = []) throws -> Run {
        try run(options, [probe] + arguments)
    }

    /// A scratch file path of its own.
    static func scratch(_ name: String) -> String {
        NSTemporaryDirectory() + "/hapbridge-ftdi-\(getpid())-\(UUID().uuidString)-\(name)"
    }
}

