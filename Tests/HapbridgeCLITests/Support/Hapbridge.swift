import Foundation

/// One run of the built `hapbridge` executable, as a user's shell runs it.
struct HapbridgeRun {
    /// The exit status (meaningful when `signal` is nil).
    var status: Int32
    /// The signal that ended the process, if one did (a trap, SIGXCPU past the CPU
    /// bound, SIGPIPE).
    var signal: Int32?
    var stdout: [UInt8]
    var stderr: [UInt8]

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
    /// Lines of standard error, without the empty one after the last newline.
    var errLines: [String] { err.split(separator: "\n").map(String.init) }

    /// Raw terminal control bytes on standard error: C0 controls other than newline,
    /// DEL, and C1 controls (UTF-8 C2 80…C2 9F). What `TerminalText` must keep out.
    var controlBytesOnStderr: [UInt8] {
        var found: [UInt8] = []
        for (i, b) in stderr.enumerated() {
            if (b < 0x20 && b != 0x0A) || b == 0x7F { found.append(b) }
            if b == 0xC2, i + 1 < stderr.count, (0x80...0x9F).contains(stderr[i + 1]) { found.append(stderr[i + 1]) }
        }
        return found
    }
}

/// Spawns the `hapbridge` product built beside this test bundle through `/bin/sh`,
/// which bounds its CPU time and address space (`ulimit`) and sets up its standard
/// streams the way the case needs: captured, `> /dev/full`, closed (`>&-`), or a pipe
/// nobody reads with SIGPIPE ignored.
enum Hapbridge {
    enum Stdout: Equatable {
        case captured, devFull, closed, brokenPipe
    }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    /// `swift build --build-tests` builds every product, the executable included, into
    /// the directory this test runner lives in.
    static let executable: String = {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [runner.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL]
        return candidates.map { $0.appendingPathComponent("hapbridge").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0].appendingPathComponent("hapbridge").path
    }()

    /// Generous for one command on a loaded 2-core machine; a run that needs more
    /// than this is a bug the bound turns into a signal.
    static let cpuSeconds = 60
    static let addressSpaceKiB = 2 << 20

    static func run(
        _ arguments: [String], stdin: [UInt8]? = nil, stdout: Stdout = .captured, closeStderr: Bool = false,
        directory: String? = nil, cpuSeconds: Int = cpuSeconds, configHome: String? = nil
    ) throws -> HapbridgeRun {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw SetupError("no hapbridge at \(executable): build it first (swift build --build-tests)") }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = scratch.appendingPathComponent("stdin"), output = scratch.appendingPathComponent("stdout")
        let errors = scratch.appendingPathComponent("stderr")
        try Data(stdin ?? []).write(to: input)

        let redirectOut = switch stdout {
        case .captured: ">\"$HB_OUT\""
        case .devFull: ">/dev/full"
        case .closed: ">&-"
        case .brokenPipe: ""
        }
        let script = "ulimit -t \(cpuSeconds) && ulimit -v \(addressSpaceKiB) || exit 125; "
            + (stdout == .brokenPipe ? "trap '' PIPE; " : "")
            + "exec \"$0\" \"$@\" <\"$HB_IN\" \(closeStderr ? "2>&-" : "2>\"$HB_ERR\"") \(redirectOut)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, executable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HB_IN"] = input.path
        environment["HB_OUT"] = output.path
        environment["HB_ERR"] = errors.path
        // Whatever a command stores (calibration results) stays in this run's scratch,
        // never in the user's own configuration.
        environment["XDG_CONFIG_HOME"] = configHome ?? scratch.appendingPathComponent("config").path
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var pipe: Pipe?
        if stdout == .brokenPipe {
            let p = Pipe()
            try p.fileHandleForReading.close()
            process.standardOutput = p.fileHandleForWriting
            pipe = p
        }
        try process.run()
        process.waitUntilExit()
        try pipe?.fileHandleForWriting.close()
        let signaled = process.terminationReason == .uncaughtSignal
        if !signaled, process.terminationStatus == 125 { throw SetupError("the shell could not set the resource limits") }
        return HapbridgeRun(
            status: signaled ? -1 : process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
            stdout: Array((try? Data(contentsOf: output)) ?? Data()), stderr: Array((try? Data(contentsOf: errors)) ?? Data()))
    }

    /// The run could not be set up (no executable, no limits): not a finding about
    /// hapbridge. Thrown rather than recorded, so runs may happen off the test's task.
    struct SetupError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A fresh directory for a test's files, removed by the caller.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
