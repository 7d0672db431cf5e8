import Foundation

/// A run of the built `hapbridge` that the test signals while it works: started with
/// its output in files, signalled once a marker shows on standard output (the command
/// has reached the part under test), then waited for within a bound.
final class SignalledRun {
    let process = Process()
    let scratch: URL
    let stdoutFile: URL
    let stderrFile: URL

    /// `standardOutput` / `standardError`: where the stream goes instead of its file
    /// (a FIFO the test holds full, to leave the command stuck writing to it).
    init(_ arguments: [String], configHome: String? = nil, standardOutput: FileHandle? = nil, standardError: FileHandle? = nil) throws {
        scratch = try Hapbridge.scratchDirectory()
        stdoutFile = scratch.appendingPathComponent("stdout")
        stderrFile = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: Hapbridge.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = configHome ?? scratch.appendingPathComponent("config").path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try standardOutput ?? FileHandle(forWritingTo: stdoutFile)
        process.standardError = try standardError ?? FileHandle(forWritingTo: stderrFile)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: scratch)
    }

    var out: String { (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "" }
    var err: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    /// Waits (polling the output file) until standard output contains `marker`; false
    /// if the process ended or `seconds` passed first.
    func waitForOutput(_ marker: String, seconds: Double = 60) -> Bool { waitFor(marker, in: { $0.out }, seconds: seconds) }

    /// The same on standard error (where `play` reports its progress).
    func waitForError(_ marker: String, seconds: Double = 60) -> Bool { waitFor(marker, in: { $0.err }, seconds: seconds) }

    /// The same on a file the command (or the emulation) writes as it goes.
    func waitForFile(_ path: String, toContain marker: String, seconds: Double = 60) -> Bool {
        waitFor(marker, in: { _ in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }, seconds: seconds)
    }

    private func waitFor(_ marker: String, in text: (SignalledRun) -> String, seconds: Double) -> Bool {
        waitUntil(seconds: seconds) { text($0).contains(marker) }
    }

    /// Waits (polling) until `condition` holds; false if the process ended or `seconds`
    /// passed first.
    func waitUntil(seconds: Double = 60, _ condition: (SignalledRun) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition(self) { return true }
            if !process.isRunning { return condition(self) }
            usleep(10_000)
        }
        return false
    }

    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// The process's children (their parent pid in /proc/PID/stat is this one's).
    var children: [pid_t] {
        let me = process.processIdentifier
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == me
        }
    }

    /// The kernel's state letter for `pid` (this process by default): "T" when stopped.
    static func state(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    /// Waits (polling /proc) until `pid` (this process by default) is stopped; false if
    /// `seconds` passed first.
    func waitUntilStopped(_ pid: pid_t? = nil, seconds: Double = 60) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if Self.state(of: pid ?? process.processIdentifier) == "T" { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits until the process catches `signal` (its handler installed: SigCgt in
    /// /proc/PID/status), for a command that says nothing before it is stuck; false if
    /// it ended or `seconds` passed first.
    func waitUntilCatching(_ signal: Int32, seconds: Double = 60) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, process.isRunning {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
            if let caught, caught & (1 << UInt64(signal - 1)) != 0 { return true }
            usleep(10_000)
        }
        return false
    }

    /// The exit status, or nil when the process did not end within `seconds` (it is
    /// then killed, so the test fails rather than hangs). A death by a signal is
    /// reported as a shell would (128 + N).
    func waitForExit(seconds: Double = 60) -> Int32? {
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < end else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            usleep(10_000)
        }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// CLOCK_MONOTONIC in µs: the clock the emulation's log stamps `host_us` with.
    static func monotonicMicroseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
    }
}

/// A FIFO held open for reading and writing by the test, filled until it takes no more:
/// a process given it as a stream blocks at its first write there, as behind a pager
/// nobody pages.
final class FullFIFO {
    let path: String
    let handle: FileHandle

    init(in directory: URL) throws {
        path = directory.appendingPathComponent("full.fifo").path
        guard mkfifo(path, 0o600) == 0 else { throw Hapbridge.SetupError("mkfifo \(path): \(String(cString: strerror(errno)))") }
        // O_RDWR: open without waiting for a reader (Linux), and stay its reader, so the
        // process's writes block rather than fail.
        let fd = open(path, O_RDWR | O_NONBLOCK)
        guard fd >= 0 else { throw Hapbridge.SetupError("open \(path): \(String(cString: strerror(errno)))") }
        let chunk = [UInt8](repeating: 0x2E, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
}
