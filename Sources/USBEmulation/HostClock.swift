import Glibc

/// The host's monotonic clock (CLOCK_MONOTONIC), in µs: the clock the emulated boards
/// run on in real time and the one the log's host times are read from. Any process
/// on the machine reads the same clock, so a client can compare its own readings.
public enum HostClock {
    public static func microseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}
