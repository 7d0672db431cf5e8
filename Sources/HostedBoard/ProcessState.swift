#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says a process is doing: the state letter of `/proc/PID/stat`
/// (proc(5)). A hosted player and its guardian read each other's, to tell a process
/// that is stopped (SIGSTOP, SIGTSTP, SIGTTIN/SIGTTOU, a debugger) from one that is
/// only slow.
public enum ProcessState: Sendable, Equatable {
    /// R, S, D, …: running or waiting, so able to act sooner or later.
    case alive(Character)
    /// T: stopped by a signal (job control or SIGSTOP).
    case stopped
    /// t: stopped by a debugger (ptrace).
    case traced
    /// Z, X, or no such process.
    case gone

    /// The state of `pid` now.
    public static func of(_ pid: pid_t) -> ProcessState {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .gone }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return .gone }
        // "pid (comm) S …": comm may hold spaces and parentheses, so the state follows
        // the last ')'.
        let text = buffer.prefix(n)
        guard let close = text.lastIndex(of: UInt8(ascii: ")")), close + 2 < text.endIndex else { return .gone }
        let letter = Character(Unicode.Scalar(text[close + 2]))
        switch letter {
        case "T": return .stopped
        case "t": return .traced
        case "Z", "X", "x": return .gone
        default: return .alive(letter)
        }
    }

    /// Stopped one way or the other: it cannot act until someone continues it.
    public var isStopped: Bool { self == .stopped || self == .traced }

    /// For messages: "stopped (SIGSTOP, or job control)".
    public var description: String {
        switch self {
        case .alive(let c): "not stopped (kernel state \(c))"
        case .stopped: "stopped (SIGSTOP, or job control: SIGTSTP, SIGTTIN, SIGTTOU)"
        case .traced: "stopped by a debugger"
        case .gone: "gone"
        }
    }
}
