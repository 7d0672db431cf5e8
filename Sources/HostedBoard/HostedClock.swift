#if canImport(Glibc)
import Glibc
#endif

/// The hosted core's clock: CLOCK_MONOTONIC, the clock the engine and the link keep
/// time by, so board time and host time are one clock (board µs are the host's
/// truncated to 32 bits, wrapping as a board's do).
public enum HostedClock {
    public static func nanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    public static func microseconds() -> UInt64 { nanoseconds() / 1000 }

    /// Board time now.
    public static func boardMicroseconds() -> UInt32 { UInt32(truncatingIfNeeded: microseconds()) }

    /// The host µs a board time stands for, taken as the one nearest `nearHost` (the
    /// wrap-safe difference, as the core compares stamps).
    public static func hostMicroseconds(ofBoard at: UInt32, nearHost now: UInt64) -> UInt64 {
        let ahead = Int64(Int32(bitPattern: at &- UInt32(truncatingIfNeeded: now)))
        return ahead >= 0 ? now + UInt64(ahead) : now - min(now, UInt64(-ahead))
    }

    /// Busy-waits until CLOCK_MONOTONIC reaches `deadline` ns.
    public static func spin(untilNanoseconds deadline: UInt64) {
        while nanoseconds() < deadline {}
    }

    /// Sleeps (clock_nanosleep, TIMER_ABSTIME on CLOCK_MONOTONIC) until `deadline` ns.
    public static func sleep(untilNanoseconds deadline: UInt64) {
        var t = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nil) == EINTR {}
    }
}
