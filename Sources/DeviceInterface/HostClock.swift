#if canImport(Glibc)
import RealTime
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host's monotonic clock in µs, the one every real-time transport reports as
/// `hostMicroseconds` (CLOCK_MONOTONIC: never steps, counts from boot).
public enum HostClock {
    public static func microseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) &* 1_000_000 &+ UInt64(t.tv_nsec / 1_000)
    }
}
