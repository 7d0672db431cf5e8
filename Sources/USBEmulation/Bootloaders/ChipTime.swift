import Foundation
import Glibc
import RealTime

/// The wall-clock side of the bootloaders' time model: an emulated bootloader answers
/// when the chip would have finished (its `FlashMemory` says how long that is), so it
/// waits on CLOCK_MONOTONIC for an absolute deadline, and a late wake-up is never
/// added to the next wait.
enum ChipTime {
    /// Sleeps until CLOCK_MONOTONIC reads `deadline` (µs).
    static func sleep(untilMicroseconds deadline: UInt64) {
        var at = timespec(tv_sec: Int(deadline / 1_000_000), tv_nsec: Int(deadline % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nil) == EINTR {}
    }

    static func now() -> UInt64 { RealTimeExecutor.monotonicMicroseconds() }

    /// "2.016": microseconds as seconds, for the emulations' summary lines.
    static func seconds(_ microseconds: UInt64) -> String { String(format: "%.3f", Double(microseconds) / 1e6) }
}
