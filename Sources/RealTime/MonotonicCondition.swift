#if canImport(Glibc)
import Glibc
#endif

/// A mutex and a condition variable whose timed waits run on CLOCK_MONOTONIC, the clock
/// the boards and the engine keep time by (a wall-clock wait would jump with NTP).
/// Heap-allocated, because pthread objects must not move, and shareable because every
/// access goes through the pthread calls.
public final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Wakes one waiter (call with the lock held, or not: a waiter re-checks its state).
    public func signal() { pthread_cond_signal(condition) }

    /// With the lock held: sleeps until signalled or until CLOCK_MONOTONIC reaches
    /// `deadline` µs (nil: until signalled); false when the deadline passed. Spurious
    /// wake-ups happen: the caller re-checks what it waits for.
    @discardableResult
    public func wait(untilMicroseconds deadline: UInt64?) -> Bool {
        guard let deadline else {
            pthread_cond_wait(condition, mutex)
            return true
        }
        var until = timespec(tv_sec: Int(deadline / 1_000_000), tv_nsec: Int(deadline % 1_000_000) * 1_000)
        return pthread_cond_timedwait(condition, mutex, &until) != ETIMEDOUT
    }
}
