import RealTime
#if canImport(Glibc)
import Glibc
#endif

/// How the hosted core's timer thread ended up: its scheduling class, whether its
/// memory is locked, its timer slack. What a user needs to know about the precision
/// of host-timed writes, and how to get better.
public struct HostedScheduling: Sendable, Equatable, CustomStringConvertible {
    public var thread: ThreadScheduling
    /// mlockall succeeded (no page fault on the timer path).
    public var memoryLocked: Bool
    /// The thread's timer slack, ns (1 when set; the kernel's default for a normal
    /// thread is 50,000).
    public var timerSlackNanoseconds: Int?

    public var isRealTime: Bool { if case .realTime = thread { true } else { false } }

    public var description: String {
        "\(thread), memory \(memoryLocked ? "locked" : "not locked"), timer slack "
            + (timerSlackNanoseconds.map { "\($0) ns" } ?? "unknown")
    }

    /// The precision to expect, in words (docs: shared timing baselines of a 2-core VM;
    /// Hardware/boards/ft232h.md, "Timing").
    public var precision: String {
        isRealTime
            ? "the timer wakes and spins onto each stamp (wake-up lateness under 30 µs at p99.9 on an idle host); a write then leaves after the program is built"
            : "most writes leave within ~50 µs of their stamps, but on a busy host some leave up to ~4 ms late (a scheduler tick)"
    }

    /// The one warning when real time was refused; nil when granted.
    /// What a user should know once when the timer thread did not get real time:
    /// `adapter` names the adapter, `address` the address `info` takes for it.
    public func notice(adapter: String, address: String) -> String? {
        guard case .normal(let reason) = thread else { return nil }
        return "the \(adapter)'s timer thread runs at normal priority (\(reason)): \(precision). "
            + "`hapbridge info --device \(address)` says how to allow real-time scheduling"
    }

    /// How to allow SCHED_FIFO and locked memory (Hardware/boards/ft232h.md, "Real-time permission").
    public static let howToGrant = [
        "an rtprio and memlock limit for your group, e.g. /etc/security/limits.d/hapbridge.conf with the lines",
        "    @hapbridge - rtprio 40",
        "    @hapbridge - memlock unlimited",
        "  (then log in again; `ulimit -r` shows the limit), or the capability on the binary:",
        "    sudo setcap cap_sys_nice,cap_ipc_lock+ep $(command -v hapbridge)",
    ]

    /// Set up the calling thread: SCHED_FIFO at `priority` (else the normal class with
    /// 1 ns timer slack, `ThreadScheduling`'s fallback), 1 ns timer slack either way,
    /// and the process's memory locked where permitted. MCL_FUTURE only where the
    /// locked-memory limit cannot bite (root, CAP_IPC_LOCK via euid 0, or an unlimited
    /// limit): under a finite limit it would make later allocations fail.
    static func adoptForCurrentThread(priority: Int32?) -> HostedScheduling {
        let thread = priority.map { ThreadScheduling.adoptForCurrentThread(priority: $0) } ?? .normal(reason: "asked for the normal class")
        let slack = ThreadScheduling.reduceTimerSlack()
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue), &limit)
        let unlimited = geteuid() == 0 || limit.rlim_cur == rlim_t.max
        let locked = mlockall(unlimited ? Int32(MCL_CURRENT | MCL_FUTURE) : Int32(MCL_CURRENT)) == 0
        return HostedScheduling(thread: thread, memoryLocked: locked, timerSlackNanoseconds: slack)
    }
}
