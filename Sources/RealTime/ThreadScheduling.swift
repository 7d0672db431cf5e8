import CRealTime
#if canImport(Glibc)
import Glibc
#endif

/// How a thread ended up being scheduled: what a time-critical loop can promise.
public enum ThreadScheduling: Sendable, Equatable, CustomStringConvertible {
    /// SCHED_FIFO at this priority: wakes within tens of µs even on a busy host.
    case realTime(priority: Int32)
    /// The normal time-sharing class, and why real time was not granted.
    case normal(reason: String)

    public var description: String {
        switch self {
        case .realTime(let p): "real-time (SCHED_FIFO \(p))"
        case .normal(let reason): "normal priority (\(reason))"
        }
    }

    /// The one-line notice a user sees when real time was refused, with what to do.
    public var notice: String? {
        guard case .normal(let reason) = self else { return nil }
        return "the engine's service thread runs at normal priority (\(reason)); on a busy host commands may go out late. "
            + "Allow real-time scheduling (CAP_SYS_NICE, or an rtprio limit: see docs/ARCHITECTURE.md, \"Timing\")"
    }

    /// Asks for SCHED_FIFO at `priority` for the calling thread; on refusal keeps the
    /// normal class but drops the timer slack to 1 ns (the default 50 µs is added to
    /// every timed wake-up of a normal thread).
    public static func adoptForCurrentThread(priority: Int32) -> ThreadScheduling {
        #if canImport(Glibc)
        var param = sched_param()
        param.sched_priority = priority
        let result = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        if result == 0 { return .realTime(priority: priority) }
        reduceTimerSlack()
        let why = result == EPERM ? "real-time scheduling not permitted for this user" : String(cString: strerror(result))
        return .normal(reason: why)
        #else
        return .normal(reason: "real-time scheduling is only set up on Linux")
        #endif
    }

    /// 1 ns timer slack for the calling thread (PR_SET_TIMERSLACK; /proc has no per-thread
    /// file for it). The kernel ignores slack for SCHED_FIFO threads, so this is what a
    /// normal-class thread's timed waits gain: the default 50 µs no longer added to each.
    /// Returns the slack now in force (ns), nil where unknown.
    @discardableResult
    public static func reduceTimerSlack() -> Int? {
        #if canImport(Glibc)
        _ = hb_set_timer_slack(1)
        let slack = hb_timer_slack()
        return slack >= 0 ? Int(slack) : nil
        #else
        return nil
        #endif
    }
}
