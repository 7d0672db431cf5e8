import RealTime

/// Wakes a thread that waits with a timeout: how a device thread sleeps until its next
/// tick yet answers host traffic at once. A condition variable on CLOCK_MONOTONIC (the
/// clock the boards run on) with a sticky flag, so a signal sent before the wait is
/// not lost.
final class Wakeup: Sendable {
    private let condition = MonotonicCondition()
    /// Guarded by `condition`'s lock.
    private nonisolated(unsafe) var signalled = false

    func signal() {
        condition.withLock {
            signalled = true
            condition.signal()
        }
    }

    /// Returns when signalled (consuming the signal) or after `microseconds`.
    func wait(microseconds: UInt64) {
        let deadline = RealTimeExecutor.monotonicMicroseconds() + microseconds
        condition.withLock {
            while !signalled {
                if !condition.wait(untilMicroseconds: deadline) { break }
            }
            signalled = false
        }
    }
}
