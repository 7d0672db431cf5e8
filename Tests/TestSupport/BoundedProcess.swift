import Foundation

/// A child process run to its end with both pipes drained while it runs (a chatty
/// child never blocks on a full pipe) and a hang guard: past `hangGuardSeconds` it is
/// terminated and the result says so, for the caller's test to record.
public struct BoundedProcess: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String
    /// It ran past its guard and was terminated.
    public var hung: Bool

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        hangGuardSeconds: Double
    ) throws -> BoundedProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Never the user's configuration (`TestEnvironment`).
        let isolated = TestEnvironment.isolated(environment ?? ProcessInfo.processInfo.environment)
        defer { isolated.cleanup() }
        process.environment = isolated.environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let outData = Drain(out.fileHandleForReading)
        let errData = Drain(err.fileHandleForReading)
        var hung = false
        if ended.wait(timeout: .now() + hangGuardSeconds) == .timedOut {
            hung = true
            process.terminate()
            ended.wait()
        }
        return BoundedProcess(status: process.terminationStatus, output: outData.text(), errors: errData.text(), hung: hung)
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
