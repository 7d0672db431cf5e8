import Dispatch
import Foundation
@testable import RealTime
import Testing

/// Tags in the order timers fired (on the executor's thread; read by the test).
private final class Fired: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func append(_ v: Int) { lock.withLock { values.append(v) } }
    var tags: [Int] { lock.withLock { values } }
}

#if canImport(Glibc)
import Glibc
#endif

/// An actor pinned to a RealTimeExecutor, as the engine is.
private actor Pinned {
    let executor: RealTimeExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    init(_ executor: RealTimeExecutor) { self.executor = executor }

    func threadID() -> pthread_t { pthread_self() }

    /// Blocks the executor's thread until `release` is signalled.
    func block(signalling started: DispatchSemaphore, until release: DispatchSemaphore) {
        started.signal()
        release.wait()
    }

    /// Sleeps on the executor's own timer; returns when it woke (monotonic µs).
    func sleep(microseconds: UInt64) async -> (asked: UInt64, woke: UInt64, thread: pthread_t) {
        let deadline = RealTimeExecutor.monotonicMicroseconds() + microseconds
        await executor.sleep(untilMicroseconds: deadline)
        return (deadline, RealTimeExecutor.monotonicMicroseconds(), pthread_self())
    }
}

@Suite("Real-time executor")
struct RealTimeExecutorTests {
    @Test("an actor on the executor runs every job on its one thread, also after its own sleeps")
    func jobsAndSleepersRunOnTheOneThread() async {
        let executor = RealTimeExecutor(name: "test", priority: nil)
        let actor = Pinned(executor)
        let first = await actor.threadID()
        for _ in 0..<20 {
            let r = await actor.sleep(microseconds: 200)
            #expect(pthread_equal(r.thread, first) != 0)
            #expect(r.woke >= r.asked, "a sleep never ends before its deadline")
        }
        #expect(pthread_equal(await actor.threadID(), first) != 0)
        executor.shutdown()
    }

    @Test("due timers fire in deadline order whatever order they were set in")
    func timersFireInDeadlineOrder() async {
        let executor = RealTimeExecutor(name: "test", priority: nil)
        let fired = Fired()
        let busy = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        // Hold the thread in a job, set three timers out of order that are all due by
        // the time it is free, then let it go: it must take them earliest first.
        let actor = Pinned(executor)
        let hold = Task { await actor.block(signalling: holding, until: busy) }
        holding.wait()
        let past = RealTimeExecutor.monotonicMicroseconds()
        for (tag, offset) in [(0, 3), (1, 1), (2, 2)] {
            executor.schedule(atMicroseconds: past - 10 + UInt64(offset)) { fired.append(tag) }
        }
        busy.signal()
        await hold.value
        _ = await actor.sleep(microseconds: 0)  // its timer is due after the three: they fire first
        #expect(fired.tags == [1, 2, 0])
        executor.shutdown()
    }

    @Test("after shutdown, jobs and sleepers still run (on a fallback queue): nothing waiting on the actor is stranded")
    func shutdownStrandsNothing() async {
        let executor = RealTimeExecutor(name: "test", priority: nil)
        let actor = Pinned(executor)
        _ = await actor.threadID()
        executor.shutdown()
        let r = await actor.sleep(microseconds: 500)
        #expect(r.woke >= r.asked)
    }

    @Test("a refused real-time request says so with a notice; a granted one has none")
    func schedulingReportsWhatWasGranted() {
        let executor = RealTimeExecutor(name: "test", priority: 10)
        switch executor.scheduling {
        case .realTime(let p): #expect(p == 10 && executor.scheduling.notice == nil)
        case .normal: #expect(executor.scheduling.notice?.contains("normal priority") == true)
        }
        executor.shutdown()
        #expect(RealTimeExecutor(name: "test", priority: nil).scheduling == .normal(reason: "not requested"))
    }

    @Test("reduceTimerSlack sets the calling thread's timer slack to 1 ns (PR_SET_TIMERSLACK: /proc has no per-thread file for it)")
    func timerSlackIsSet() {
        #expect(ThreadScheduling.reduceTimerSlack() == 1)
    }
}
