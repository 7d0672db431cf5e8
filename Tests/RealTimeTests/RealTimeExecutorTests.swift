import RealTime
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An actor pinned to a RealTimeExecutor, as the engine is.
private actor Pinned {
    let executor: RealTimeExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    init(_ executor: RealTimeExecutor) { self.executor = executor }

    func threadID() -> pthread_t { pthread_self() }

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

    @Test("sleepers wake in deadline order whatever order they went to sleep in")
    func timersFireInDeadlineOrder() async {
        let executor = RealTimeExecutor(name: "test", priority: nil)
        let actor = Pinned(executor)
        let order = await withTaskGroup(of: (Int, UInt64).self) { group in
            for (i, us) in [3000, 1000, 2000].enumerated() {
                group.addTask { (i, await actor.sleep(microseconds: UInt64(us)).woke) }
            }
            return await group.reduce(into: []) { $0.append($1) }.sorted { $0.1 < $1.1 }.map(\.0)
        }
        #expect(order == [1, 2, 0])
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
}
