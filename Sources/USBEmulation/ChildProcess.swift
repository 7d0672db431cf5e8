import RealTime
import Synchronization
import FileAccess
import Glibc

/// A child of the emulation: COMMAND, started with the emulation's environment
/// (UMOCKDEV_DIR, LD_PRELOAD, HAPBRIDGE_EMULATE_CONTROL) and the terminal, in our
/// process group (so Ctrl-C reaches it); or a board's simulator, on a socket, in a
/// group of its own (the emulation ends it). Either way with default signal
/// dispositions and an empty signal mask, whatever this process set up for itself
/// (the Swift runtime ignores SIGPIPE: a child inheriting that would print "Broken
/// pipe" in `yes | head -1` instead of dying quietly of the signal).
struct ChildProcess {
    let pid: pid_t

    /// The exit status `hapbridge emulate` reports when the emulation itself failed
    /// before or around COMMAND (the convention of env, timeout and container runners).
    static let emulationFailed: Int32 = 125
    /// COMMAND was found but could not be executed, or was not found (the shell's codes).
    static let notExecutable: Int32 = 126
    static let notFound: Int32 = 127

    /// The signals the emulation handles itself (SignalRelay).
    static let emulationSignals = [SIGUSR1, SIGUSR2, SIGTERM, SIGHUP, SIGINT, SIGTSTP]

    /// Why COMMAND did not start, and the exit status that reports it.
    struct SpawnFailure: Error {
        var status: Int32
        var message: String
    }

    /// `stdio`: a descriptor to use as the child's stdin, stdout and stderr (nil: ours).
    /// `ownGroup`: a process group of its own, out of the terminal's reach.
    static func spawn(_ command: [String], stdio: Int32? = nil, ownGroup: Bool = false) -> Result<ChildProcess, SpawnFailure> {
        guard let program = command.first else { return .failure(SpawnFailure(status: emulationFailed, message: "no COMMAND given")) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        // Every signal back to its default (ignored ones included, SIGPIPE first of
        // all); posix_spawn skips SIGKILL and SIGSTOP, which cannot be changed.
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // COMMAND in the normal scheduling class, whatever the emulation's threads run at
        // (`emulate ft232h` takes SCHED_FIFO for its device: FT232HEmulation.devicePriority).
        var normal = sched_param()
        posix_spawnattr_setschedpolicy(&attributes, SCHED_OTHER)
        posix_spawnattr_setschedparam(&attributes, &normal)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSCHEDULER | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        posix_spawnattr_setpgroup(&attributes, 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdio {
            for target in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] { posix_spawn_file_actions_adddup2(&actions, stdio, target) }
        }
        // COMMAND's arguments as the bytes the user gave (`ArgumentText`), not UTF-8-repaired.
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { ArgumentText.cString($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard let file = argv[0] else { return .failure(SpawnFailure(status: emulationFailed, message: "out of memory for COMMAND's arguments")) }
        let e = posix_spawnp(&pid, file, &actions, &attributes, &argv, environ)
        guard e == 0 else {
            let why = String(cString: strerror(e))
            return .failure(SpawnFailure(status: e == ENOENT ? notFound : notExecutable, message: "cannot run \(TerminalText.echo(program)): \(why)"))
        }
        return .success(ChildProcess(pid: pid))
    }

    /// An executable's path found on $PATH, as posix_spawnp would find it.
    static func find(executable name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// Waits for it to end: its exit status, or 128 + the signal that killed it.
    /// `stopped` is told each time it is stopped by a signal (that signal); nil: not
    /// watched.
    func wait(stopped: ((Int32) -> Void)? = nil) -> Int32 {
        var status: Int32 = 0
        while true {
            guard waitpid(pid, &status, stopped == nil ? 0 : WUNTRACED) >= 0 else {
                guard errno == EINTR else { return Self.emulationFailed }
                continue
            }
            // WIFSTOPPED: the low byte is 0x7F, the stopping signal above it.
            if status & 0xFF == 0x7F {
                stopped?((status >> 8) & 0xFF)
                continue
            }
            let signal = status & 0x7F
            return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        }
    }

    func send(_ signal: Int32) { kill(pid, signal) }

    /// Whether it has exited (reaping it if so), without waiting.
    func hasExited() -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }
}

extension ChildProcess {
    /// Runs an emulation's COMMAND to its end with its signals relayed
    /// (`CommandSignals`): COMMAND's status, or the spawn failure's after `report`ing it.
    static func runRelayingSignals(
        _ command: [String], hotplug: (@Sendable (Int32) -> Void)? = nil, report: @escaping @Sendable (String) -> Void
    ) -> Int32 {
        let signals = CommandSignals(hotplug: hotplug)
        defer { signals.stop() }
        return signals.run(command, report: report)
    }
}
