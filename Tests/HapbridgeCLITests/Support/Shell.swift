import Foundation

/// Runs a `/bin/sh` script with `$HB` naming the built `hapbridge`: for command lines
/// Foundation cannot pass (arguments whose bytes are not UTF-8, written with printf in
/// the script) and for set-ups a shell says best (a FIFO's reader in the background).
/// Standard output and error are captured; a run past `hangGuardSeconds` is killed and
/// recorded as hung.
enum Shell {
    static let hangGuardSeconds: Double = 120

    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: [UInt8]
        var stderr: [UInt8]
        var out: String { String(decoding: stdout, as: UTF8.self) }
        var err: String { String(decoding: stderr, as: UTF8.self) }
        var errLines: [String] { err.split(separator: "\n").map(String.init) }
        var description: String { "exit \(status)\nstdout:\n\(out)\nstderr:\n\(err)" }
    }

    static func run(_ script: String, directory: String? = nil, environment extra: [String: String] = [:]) throws -> Run {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec >\"$HB_OUT\" 2>\"$HB_ERR\" </dev/null; " + script]
        var environment = ProcessInfo.processInfo.environment
        environment["HB"] = Hapbridge.executable
        environment["HB_OUT"] = out.path
        environment["HB_ERR"] = err.path
        environment["XDG_CONFIG_HOME"] = scratch.appendingPathComponent("config").path
        environment.merge(extra) { $1 }
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + hangGuardSeconds) == .timedOut {
            kill(-process.processIdentifier, SIGKILL)
            process.terminate()
            done.wait()
            throw Hapbridge.SetupError("hung for \(hangGuardSeconds) s: \(script)")
        }
        return Run(
            status: process.terminationReason == .uncaughtSignal ? -1 : process.terminationStatus,
            stdout: Array((try? Data(contentsOf: out)) ?? Data()), stderr: Array((try? Data(contentsOf: err)) ?? Data()))
    }

    /// `'text'` for a script.
    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
