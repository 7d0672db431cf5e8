import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A serial executor on a dedicated thread, real-time where the system allows it, with
/// its own timed sleeps.
///
/// An actor that returns this executor (`unownedExecutor`) runs every job on that one
/// thread, and `sleep(untilMicroseconds:)` wakes it from the thread's own timed wait
/// (a monotonic condition variable), so a periodic loop's wake-ups never pass through
/// Dispatch's timer or the cooperative pool, whose normal-priority threads carry
/// multi-millisecond tails on a loaded host (docs/ARCHITECTURE.md, "Timing").
///
/// `shutdown()` ends the thread once it is idle; jobs that still arrive afterwards run
/// on a serial Dispatch queue, so nothing waiting on the actor is ever stranded.
public final class RealTimeExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: all mutable state is in `Core`, behind its pthread mutex.
    private let core: Core
    /// How the thread is scheduled (known once `init` returns).
    public let scheduling: ThreadScheduling

    /// Starts the thread. `priority` is the SCHED_FIFO priority to ask for; nil keeps
    /// the normal class (work that runs flat out, like a virtual-time simulation, must
    /// not hold a real-time thread: it would starve the rest of the core).
    public init(name: String, priority: Int32?) {
        core = Core()
        let started = DispatchSemaphore(value: 0)
        let box = SchedulingBox()
        let core = core
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        let context = Unmanaged.passRetained(ThreadStart(name: name, priority: priority, core: core, started: started, box: box))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
            start.run()
            return nil
        }, context.toOpaque())
        if result == 0 {
            pthread_detach(thread)
            started.wait()
            scheduling = box.value ?? .normal(reason: "unknown")
            // The thread keeps its executor alive until it has run its last job: a job
            // may release the actor that owns this executor, and the runtime still
            // touches the executor after that job returns.
            core.keepAlive(self)
        } else {
            context.release()
            core.stopWithoutThread()
            scheduling = .normal(reason: "no service thread: \(String(cString: strerror(result)))")
        }
    }

    deinit { core.shutdown() }

    public func enqueue(_ job: consuming ExecutorJob) {
        core.enqueue(UnownedJob(job), executor: asUnownedSerialExecutor())
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Suspends the caller until CLOCK_MONOTONIC reaches `microseconds` (or at once if
    /// it has). It stays isolated to the caller (`isolation`), so for an actor on this
    /// executor the wake-up is one job straight onto this thread: a nonisolated sleep
    /// would resume on the global pool first and hop back, paying its latency.
    public func sleep(untilMicroseconds deadline: UInt64, isolation: isolated (any Actor)? = #isolation) async {
        await withCheckedContinuation(isolation: isolation) { (c: CheckedContinuation<Void, Never>) in schedule(atMicroseconds: deadline) { c.resume() } }
    }

    /// Runs `body` on this thread once CLOCK_MONOTONIC reaches `deadline` (what a
    /// sleep's wake-up is made of; public for a sleep something else may end sooner,
    /// as the engine's service loop does when a player operation comes).
    public func schedule(atMicroseconds deadline: UInt64, _ body: @escaping @Sendable () -> Void) {
        core.addTimer(deadline, body)
    }

    /// Ends the thread once the jobs queued so far have run. The owner must call it
    /// (an actor in its deinit): until then the thread keeps the executor alive.
    public func shutdown() { core.shutdown() }

    /// CLOCK_MONOTONIC in µs: the clock `sleep(untilMicroseconds:)` waits on.
    public static func monotonicMicroseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) &* 1_000_000 &+ UInt64(t.tv_nsec / 1_000)
    }
}

/// pthread_setname_np needs _GNU_SOURCE, which Glibc's module does not define: the
/// same through /proc (what `ps -L` and `top -H` show).
private func nameCurrentThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    _ = name.withCString { write(fd, $0, strlen($0)) }
    close(fd)
}

private final class SchedulingBox: @unchecked Sendable {
    // @unchecked: written once by the new thread before it signals, read after the wait.
    var value: ThreadScheduling?
}

private final class ThreadStart: @unchecked Sendable {
    // @unchecked: handed from the creating thread to the new one, then only used there.
    let name: String, priority: Int32?, core: RealTimeExecutor.Core, started: DispatchSemaphore, box: SchedulingBox
    init(name: String, priority: Int32?, core: RealTimeExecutor.Core, started: DispatchSemaphore, box: SchedulingBox) {
        (self.name, self.priority, self.core, self.started, self.box) = (name, priority, core, started, box)
    }
    func run() {
        nameCurrentThread(String(name.utf8.prefix(15)) ?? "hapbridge")
        box.value = priority.map { ThreadScheduling.adoptForCurrentThread(priority: $0) } ?? .normal(reason: "not requested")
        started.signal()
        core.runLoop()
    }
}

extension RealTimeExecutor {
    /// The queue, the timers and the thread's loop, behind one mutex and condition.
    final class Core: @unchecked Sendable {
        // @unchecked: every field below is read and written with `condition`'s lock held.
        private let condition = MonotonicCondition()
        private var jobs: [UnownedJob] = []
        private var jobsHead = 0
        private var timers: [(deadline: UInt64, fire: @Sendable () -> Void)] = []
        private var running = true
        private var threadAlive = true
        /// The thread is parked in `wait`: only then does an enqueue pay for a wake-up.
        private var parked = false
        private var ownExecutor: UnownedSerialExecutor?
        /// The executor, held by its running thread (released when the thread ends).
        private var owner: AnyObject?
        /// After shutdown: where late jobs and timers go (in order, one at a time).
        private let fallback = DispatchQueue(label: "hapbridge.realtime.fallback")

        func enqueue(_ job: UnownedJob, executor: UnownedSerialExecutor) {
            condition.lock()
            ownExecutor = executor
            if threadAlive {
                jobs.append(job)
                let wake = parked
                condition.unlock()
                // Signalled after unlocking: a real-time waiter woken with the lock still
                // held would preempt this thread only to block on the mutex and switch back.
                if wake { condition.signal() }
            } else {
                condition.unlock()
                fallback.async { job.runSynchronously(on: executor) }
            }
        }

        func addTimer(_ deadline: UInt64, _ fire: @escaping @Sendable () -> Void) {
            condition.lock()
            guard threadAlive else {
                condition.unlock()
                let now = RealTimeExecutor.monotonicMicroseconds()
                fallback.asyncAfter(deadline: .now() + .microseconds(Int(clamping: deadline > now ? deadline - now : 0)), execute: fire)
                return
            }
            let i = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
            timers.insert((deadline, fire), at: i)
            // Only a new earliest deadline changes how long the parked thread waits.
            let wake = parked && i == 0
            condition.unlock()
            if wake { condition.signal() }
        }

        func keepAlive(_ executor: AnyObject) {
            condition.lock()
            if threadAlive { owner = executor }
            condition.unlock()
        }

        func shutdown() {
            condition.lock()
            running = false
            condition.signal()
            condition.unlock()
        }

        func stopWithoutThread() {
            condition.lock()
            running = false
            threadAlive = false
            condition.unlock()
        }

        /// Jobs first (in order), then due timers; otherwise wait for either.
        func runLoop() {
            condition.lock()
            while true {
                if jobsHead < jobs.count {
                    let job = jobs[jobsHead]
                    jobsHead += 1
                    if jobsHead == jobs.count {
                        jobs.removeAll(keepingCapacity: true)
                        jobsHead = 0
                    }
                    let executor = ownExecutor
                    condition.unlock()
                    if let executor { job.runSynchronously(on: executor) }
                    condition.lock()
                    continue
                }
                let now = RealTimeExecutor.monotonicMicroseconds()
                if let first = timers.first, first.deadline <= now {
                    timers.removeFirst()
                    condition.unlock()
                    first.fire()  // a sleeper's resume enqueues its job: it runs next round
                    condition.lock()
                    continue
                }
                if !running { break }
                parked = true
                condition.wait(untilMicroseconds: timers.first?.deadline)
                parked = false
            }
            // Shut down: whatever still sleeps wakes on the fallback queue at its time.
            threadAlive = false
            let left = timers
            timers.removeAll()
            let lastReference = owner
            owner = nil
            condition.unlock()
            defer { withExtendedLifetime(lastReference) {} }
            for t in left {
                let now = RealTimeExecutor.monotonicMicroseconds()
                let delay = t.deadline > now ? t.deadline - now : 0
                fallback.asyncAfter(deadline: .now() + .microseconds(Int(clamping: delay)), execute: t.fire)
            }
        }
    }
}
