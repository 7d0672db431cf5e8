import Glibc

/// Wakes a thread that waits with a timeout: how a device thread sleeps until its next
/// tick yet answers host traffic at once. A condition variable on CLOCK_MONOTONIC (the
/// clock the boards run on) with a sticky flag, so a signal sent before the wait is
/// not lost.
final class Wakeup: @unchecked Sendable {
    // Heap-allocated: pthread objects must not move. Only touched through pthread calls,
    // which is what makes the class safe to share.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let signalled = UnsafeMutablePointer<Bool>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        signalled.initialize(to: false)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
        signalled.deallocate()
    }

    func signal() {
        pthread_mutex_lock(mutex)
        signalled.pointee = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Returns when signalled (consuming the signal) or after `microseconds`.
    func wait(microseconds: UInt64) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let ns = UInt64(now.tv_nsec) + (microseconds % 1_000_000) * 1000
        var deadline = timespec(tv_sec: now.tv_sec + Int(microseconds / 1_000_000) + Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        pthread_mutex_lock(mutex)
        while !signalled.pointee {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        signalled.pointee = false
        pthread_mutex_unlock(mutex)
    }
}
