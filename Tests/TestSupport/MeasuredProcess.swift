import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process run to its end with what it cost: its own peak resident memory from
/// wait4(2)'s rusage (not the test process's, nor another test's child), how it ended
/// (an exit status, or the signal that killed it: a trap), its output and errors (to
/// files, so a chatty child never blocks), standard input from a file. Waited for by
/// polling its state, with a hang guard past which it is killed and the result says so.
///
/// The child is forked by a small Python process, not spawned from this one: Linux
/// keeps a process's peak across execve(2) (exec_mmap records the outgoing address
/// space's high-water mark in the process's maxrss), and posix_spawn runs the child
/// in this process's address space until it execs, so a child spawned from here
/// reports the test runner's own peak (166 MB on a CI runner, whatever it ran). Forked
/// from Python, its floor is Python's few megabytes.
public struct MeasuredProcess: Sendable {
    /// The exit status, when it exited.
    public var status: Int32?
    /// The signal that ended it, when one did.
    public var signal: Int32?
    public var output: String
    public var errors: String
    /// ru_maxrss: the most memory it held at once, KiB.
    public var maxResidentKilobytes: Int
    /// It ran past its guard and was killed.
    public var hung: Bool

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` with `arguments`, `environment` added to this process's,
    /// standard input read from `input` (a path; /dev/null when nil).
    public static func run(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:], hangGuardSeconds: Double = 120
    ) throws -> MeasuredProcess {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("measured-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let out = "\(scratch)/out", err = "\(scratch)/err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Never the user's configuration (`TestEnvironment`).
        let isolated = TestEnvironment.isolated(ProcessInfo.processInfo.environment.merging(environment) { $1 })
        defer { isolated.cleanup() }
        let env = isolated.environment.map { "\($0.key)=\($0.value)" }
        // The forker and the child in a process group of their own, so the hang guard
        // kills both.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let result = "\(scratch)/result"
        let forker = ["/usr/bin/python3", "-I", "-c", forkerScript, result]
        guard FileManager.default.isExecutableFile(atPath: forker[0]) else {
            throw Failure(description: "\(forker[0]) is missing: scripts/apt-packages.txt installs it")
        }
        let argv = (forker + [executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, forker[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))") }
        var forkerStatus: Int32 = 0
        var hung = false
        let deadline = Date().addingTimeInterval(hangGuardSeconds)
        while true {
            let r = waitpid(pid, &forkerStatus, WNOHANG)
            if r == pid { break }
            if r < 0, errno != EINTR { throw Failure(description: "waitpid: \(String(cString: strerror(errno)))") }
            if Date() > deadline, !hung {
                hung = true
                kill(-pid, SIGKILL)
            }
            usleep(5_000)
        }
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        // "STATUS MAXRSS": the child's wait status and its own peak, as the forker saw them.
        let said = text(result).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard said.count == 2, let status = Int32(exactly: said[0]) else {
            if hung { return MeasuredProcess(status: nil, signal: SIGKILL, output: text(out), errors: text(err), maxResidentKilobytes: 0, hung: true) }
            throw Failure(description: "the forker left no result (its wait status \(forkerStatus)): \(text(err).suffix(500))")
        }
        let signalled = status & 0x7F
        return MeasuredProcess(
            status: signalled == 0 ? (status >> 8) & 0xFF : nil, signal: signalled == 0 ? nil : signalled, output: text(out), errors: text(err),
            maxResidentKilobytes: said[1], hung: hung)
    }

    /// Forks, execs the command after the result path in the child, waits for it with
    /// wait4(2) and writes its wait status and ru_maxrss (KiB) to the result path.
    static let forkerScript = """
        import os, sys
        result, argv = sys.argv[1], sys.argv[2:]
        pid = os.fork()
        if pid == 0:
            try:
                os.execve(argv[0], argv, os.environ)
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        with open(result, "w") as f:
            f.write(f"{status} {usage.ru_maxrss}")
        """
}
