import Foundation
import TestSupport

enum Repo {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// `swift build --build-tests` puts the executable beside the test runner.
    static let hapbridge: String = {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [runner.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL]
        return candidates.map { $0.appendingPathComponent("hapbridge").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0].appendingPathComponent("hapbridge").path
    }()
}

struct ProcessRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The signal that ended the process, if one did (a trap: SIGILL, SIGTRAP).
    var signal: Int32? = nil
}

/// Runs a program to its end (a bounded wait for a child process, not for hardware).
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRun {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    // Never the user's configuration (`TestEnvironment`).
    let isolated = TestEnvironment.isolated(ProcessInfo.processInfo.environment.merging(environment) { $1 })
    defer { isolated.cleanup() }
    p.environment = isolated.environment
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ProcessRun(
        status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self),
        signal: p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil)
}

func temporaryDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hil-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}
