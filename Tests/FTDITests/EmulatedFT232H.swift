import Foundation
import Testing

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hapbridge)
        process.arguments = ["emulate", "ft232h"] + options + ["--"] + command
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let outData = Drain(out.fileHandleForReading)
        let errData = Drain(err.fileHandleForReading)
        if ended.wait(timeout: .now() + hangGuardSeconds) == .timedOut {
            process.terminate()
            Issue.record("hung for \(Int(hangGuardSeconds)) s: \(command.joined(separator: " "))")
            ended.wait()
        }
        return Run(status: process.terminationStatus, output: outData.text(), errors: errData.text())
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

/// Reads a pipe to its end on a thread of its own.
final class Drain: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
