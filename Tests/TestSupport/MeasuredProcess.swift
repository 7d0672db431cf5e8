import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process run to its end with what it cost: its own peak resident memory from
/// wait4(2)'s rusage (not the test process's, nor another test's child), how it ended
/// (an exit status, or the signal that killed it: a trap), its output and errors (to
/// files, so a chatty child never blocks), standard input from a file. Waited for by
/// polling its state, with a hang guard past which it is killed and the result says so.
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
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        var hung = false
        let deadline = Date().addingTimeInterval(hangGuardSeconds)
        while true {
            let r = wait4(pid, &status, WNOHANG, &usage)
            if r == pid { break }
            if r < 0, errno != EINTR { throw Failure(description: "wait4: \(String(cString: strerror(errno)))") }
            if Date() > deadline, !hung {
                hung = true
                kill(pid, SIGKILL)
            }
            usleep(5_000)
        }
        let signalled = status & 0x7F
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return MeasuredProcess(
            status: signalled == 0 ? (status >> 8) & 0xFF : nil, signal: signalled == 0 ? nil : signalled, output: text(out), errors: text(err),
            maxResidentKilobytes: Int(usage.ru_maxrss), hung: hung)
    }
}
