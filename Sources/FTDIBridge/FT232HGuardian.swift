import HostedBoard
import CFTDIBridge
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A DRV2605 keeps driving its last RTP value when its host stops talking, and an FT232H
/// keeps its pins (EN high) as long as it has power: nothing on the adapter notices a
/// player that died, was stopped or hangs. A bridge board's firmware stops the chip after
/// 495 ms of host silence; with the firmware core hosted in the player, its watchdog stops
/// with the player. The guardian is the watchdog outside the player: a small process
/// started beside it (`hapbridge guard ftdi`, `FT232HGuardianWatch`), connected by a
/// socket pair on which:
///
/// - the player sends a heartbeat every 50 ms from the hosted core's service thread (the
///   thread that runs the core's own host-silence watchdog), so a silence means the core's
///   main context is not running: the player is stopped (SIGSTOP, a debugger, SIGTTOU),
///   frozen or hung. Silent for 250 ms while the kernel says it is stopped, or for 1 s
///   whatever it says, the guardian takes the FT232H from it and stops the chip
///   (`FT232HTakeover`) and tells it so ("T", then why);
/// - the player's end closes however it ends (SIGKILL, a crash): the guardian reads EOF
///   and stops the chip the same way. An orderly close says "c" (closing: the player is
///   stopping the chip itself, within 5 s) and then "d" (disarm: done, leave) first;
/// - the guardian's end closes if it dies: the player sees EOF on its next service pass
///   (every millisecond) and halts its board (the chip in standby at once), as it does
///   when the guardian has been stopped for 250 ms: a player whose guardian cannot act
///   does not drive.
///
/// A socket pair rather than pipes: one descriptor each way, and a send to a guardian that
/// is gone is EPIPE with MSG_NOSIGNAL, never the SIGPIPE that ends a CLI process.
///
/// The guardian is exec'd (`/proc/self/exe`, the running binary even if it was replaced
/// on disk), never a bare fork: the player has threads, and only exec is safe after fork
/// there. It runs in its own process group, so a Ctrl-C or Ctrl-Z meant for the player
/// does not reach it, and under its own name (`processName`, argv[0] and the kernel's
/// comm), so `pkill hapbridge` or `killall hapbridge` aimed at the player leaves it to do
/// its job. It says it is ready only once it holds the FT232H's usbfs node open, so a
/// player never drives with a guardian that could not act.
public final class FT232HGuardian: HostedBoardGuard, @unchecked Sendable {
    // @unchecked: `socket` is written once (closed by `disarm`, after the board's service
    // thread ended); everything else that changes is behind `state`.

    /// What starts a guardian: the program and the arguments before the ones `init` adds
    /// (`HostedGuardianRequest.arguments`: `guard ftdi --player … --node … --scl-hz …`, the
    /// serial); it runs under `processName`.
    public typealias Command = GuardianCommand

    /// argv[0] and the comm the guardian gives itself: no "hapbridge" in it, so a `pkill`
    /// or `killall` by that name (comm or, with -f, the command line) spares it. 15
    /// characters: the kernel's comm holds no more.
    public static let processName = "ft232h-guardian"

    /// The bytes the two ends send each other.
    public enum Message {
        /// Player → guardian: the core's main context ran in the last heartbeat interval.
        public static let heartbeat = UInt8(ascii: "h")
        /// Player → guardian: closing, stopping the chip itself (heartbeats end).
        public static let closing = UInt8(ascii: "c")
        /// Player → guardian: the chip is stopped; leave when the socket closes.
        public static let disarm = UInt8(ascii: "d")
        /// Guardian → player: watching, the FT232H's node open.
        public static let ready = UInt8(ascii: "r")
        /// Guardian → player: took the FT232H and stopped the chip; a line saying why follows.
        public static let tookOver = UInt8(ascii: "T")
    }

    /// The guardian's bounds (ns), in one place for both ends and the docs.
    public enum Timing {
        /// How often the player beats.
        public static let heartbeat: UInt64 = 50_000_000
        /// Silence after which a stopped player (state T or t) is taken over; the
        /// guardian looks every `heartbeat`, so it acts 250–300 ms after the stop.
        public static let stoppedSilence: UInt64 = 250_000_000
        /// Silence after which a player is taken over whatever its state (frozen, hung).
        public static let silence: UInt64 = 1_000_000_000
        /// How long a closing player has to stop the chip itself and disarm.
        public static let closing: UInt64 = 5_000_000_000
        /// How long the player tolerates its guardian stopped before it halts its board.
        public static let guardianStopped: UInt64 = 250_000_000
        /// How long the player waits for a starting guardian's "ready".
        public static let ready: UInt64 = 10_000_000_000
        /// How long `disarm` waits for the guardian to leave before it stops waiting.
        public static let leave: UInt64 = 2_000_000_000
    }

    public let pid: pid_t
    private var socket: Int32

    private struct State {
        var lastBeat: UInt64 = 0
        var lastLook: UInt64 = 0
        var stoppedSince: UInt64?
        var pending: [UInt8] = []
        var ended = false
    }
    private let state = Mutex(State())

    /// Starts the guardian for the FT232H at `usbfs` (the node libusb opened) and waits
    /// until it is ready. Throws, saying why, when it cannot be started or ends first.
    public init(command: Command, usbfs: String, sclHz: Double, serial: String?) throws(FT232HGuardianError) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .spawn("socketpair: \(String(cString: strerror(errno)))")
        }
        let arguments =
            [Self.processName] + command.arguments
            + HostedGuardianRequest(scheme: FT232HAdapter().scheme, player: getpid(), node: usbfs, sclHz: Int(sclHz), serial: serial).arguments
        var child: pid_t = 0
        let r = Self.spawn(command.executable, arguments, stdin: ends[1], pid: &child)
        close(ends[1])
        guard r == 0 else {
            close(ends[0])
            throw .spawn("\(command.executable): \(String(cString: strerror(r)))")
        }
        pid = child
        socket = ends[0]
        try awaitReady()
        state.withLock { $0.lastBeat = HostedClock.nanoseconds() }
    }

    deinit { disarm() }

    /// posix_spawn with the socket's end as the child's standard input (dup2 clears
    /// close-on-exec on the copy) and no other descriptor of the player's beyond standard
    /// output and error, in a process group of its own, every signal back to its default
    /// and none blocked (whatever the player set up for itself), in the normal scheduling
    /// class.
    ///
    /// No other descriptor: one the player opened without close-on-exec and the guardian
    /// inherited would outlive the player — a usbfs file would keep the dead player's
    /// claim, and under umockdev a client's ioctl socket kept open keeps the emulation
    /// waiting on a dead player's half-sent ioctl, the guardian's own ioctls behind it.
    private static func spawn(_ path: String, _ arguments: [String], stdin: Int32, pid: inout pid_t) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        let closing = hb_spawn_close_from(&actions, 3)
        guard closing == 0 else { return closing }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var normal = sched_param()
        posix_spawnattr_setschedpolicy(&attributes, SCHED_OTHER)
        posix_spawnattr_setschedparam(&attributes, &normal)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSCHEDULER))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        return posix_spawn(&pid, path, &actions, &attributes, &argv, environ)
    }

    /// Waits for "ready"; an EOF first is a guardian that ended, with its status.
    private func awaitReady() throws(FT232HGuardianError) {
        let deadline = HostedClock.nanoseconds() + Timing.ready
        while true {
            let now = HostedClock.nanoseconds()
            guard now < deadline else {
                kill(pid, SIGKILL)
                reap(waitingUpTo: Timing.leave)
                throw .notReady("it did not say it was ready within \(Timing.ready / 1_000_000_000) s")
            }
            var p = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32((deadline - now) / 1_000_000) + 1)
            if n < 0 && errno == EINTR { continue }
            var byte: UInt8 = 0
            let got = recv(socket, &byte, 1, Int32(MSG_DONTWAIT))
            if got == 1 && byte == Message.ready { return }
            if got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) {  // ECONNRESET included
                throw .notReady("it ended before it was ready (\(reap(waitingUpTo: Timing.leave) ?? "status unknown"))")
            }
        }
    }

    // MARK: the hosted board's service thread

    /// Each pass of the hosted core's service thread: a heartbeat when one is due, the
    /// guardian's word or its end read, and every heartbeat interval a look at whether it
    /// is stopped. Returns why the board must halt, once.
    public func servicePass(nowNanoseconds now: UInt64) -> String? {
        let due = state.withLock { s -> (beat: Bool, look: Bool)? in
            guard !s.ended else { return nil }
            let beat = now &- s.lastBeat >= Timing.heartbeat
            if beat { s.lastBeat = now }
            let look = now &- s.lastLook >= Timing.heartbeat
            if look { s.lastLook = now }
            return (beat, look)
        }
        guard let due else { return nil }
        if due.beat { send(Message.heartbeat) }
        if let why = readWord() { return end(why) }
        if due.look {
            let guardian = ProcessState.of(pid)
            let stoppedFor: UInt64? = state.withLock { s in
                if !guardian.isStopped { s.stoppedSince = nil; return nil }
                if s.stoppedSince == nil { s.stoppedSince = now }
                return now &- (s.stoppedSince ?? now)
            }
            if let stoppedFor, stoppedFor >= Timing.guardianStopped {
                return end(
                    "the FT232H's guardian (pid \(pid)) is \(guardian.description): it could not stop the chip if this player died, "
                        + "so the player stopped the chip and the play")
            }
        }
        return nil
    }

    private func end(_ why: String) -> String? {
        state.withLock { s in
            guard !s.ended else { return nil }
            s.ended = true
            return why
        }
    }

    /// What the guardian said, if it said something complete, or that it is gone.
    private func readWord() -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        // A guardian that ended with heartbeats it had not read yet resets the connection
        // (ECONNRESET) rather than closing it: ended all the same.
        let ended = n == 0 || (n < 0 && errno == ECONNRESET)
        if n < 0 && !ended {
            if errno == EAGAIN || errno == EINTR { return nil }
            return "the FT232H's guardian (pid \(pid)) cannot be reached (\(String(cString: strerror(errno)))): "
                + "without it nothing would stop the chip if this player died, so the player stopped the chip and the play"
        }
        if ended {
            return "the FT232H's guardian (pid \(pid)) ended (\(reap(waitingUpTo: 50_000_000) ?? "status unknown")): "
                + "without it nothing would stop the chip if this player died, so the player stopped the chip and the play"
        }
        let words = state.withLock { s -> [UInt8] in
            s.pending += buffer.prefix(n)
            return s.pending
        }
        // "T" and a line: the guardian took the FT232H (this player was stopped or silent).
        guard let t = words.firstIndex(of: Message.tookOver), let newline = words[t...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return "the FT232H's guardian took the adapter and stopped the chip: " + String(decoding: words[(t + 1)..<newline], as: UTF8.self)
    }

    private func send(_ byte: UInt8) {
        var b = byte
        _ = Glibc.send(socket, &b, 1, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
    }

    // MARK: the transport's close

    /// The player is stopping the chip itself: heartbeats end now; the guardian waits
    /// (`Timing.closing`) for the disarm.
    public func closing() {
        guard socket >= 0 else { return }
        send(Message.closing)
    }

    /// The chip is stopped: tells the guardian to leave and waits (`Timing.leave`) for it
    /// to, reaping it. Idempotent; call once the board's service thread has ended.
    public func disarm() {
        guard socket >= 0 else { return }
        send(Message.disarm)
        close(socket)
        socket = -1
        reap(waitingUpTo: Timing.leave)
    }

    /// The guardian's exit as a shell says it ("exit 1", "killed by SIGKILL"), once it
    /// has ended within `nanoseconds`; nil if it has not (or was reaped already).
    @discardableResult
    private func reap(waitingUpTo nanoseconds: UInt64) -> String? {
        let deadline = HostedClock.nanoseconds() + nanoseconds
        while true {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                let signal = status & 0x7F
                return signal == 0 ? "exit status \((status >> 8) & 0xFF)" : "killed by \(Self.signalName(signal))"
            }
            if r < 0 && errno != EINTR { return nil }
            guard HostedClock.nanoseconds() < deadline else { return nil }
            HostedClock.sleep(untilNanoseconds: HostedClock.nanoseconds() + 1_000_000)
        }
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        default: "signal \(signal)"
        }
    }
}

public enum FT232HGuardianError: Error, Sendable, CustomStringConvertible {
    /// It could not be started at all.
    case spawn(String)
    /// It started but never said it was ready.
    case notReady(String)

    public var description: String {
        switch self {
        case .spawn(let why), .notReady(let why): why
        }
    }
}
