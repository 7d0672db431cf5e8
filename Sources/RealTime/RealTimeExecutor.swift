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
        await withCheckedContinuation(isolation: isolation) { (c: CheckedContinuation<Void, Never>) in core.addTimer(deadline) { c.resume() } }
    }

    /// Runs `body` on this thread once CLOCK_MONOTONIC reaches `deadline` (what a
    /// sleep's wake-up is made of).
    func schedule(atMicroseconds deadline: UInt64, _ body: @escaping @Sendable () -> Void) {
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
        // @unchecked: every field below is read and written with `mutex` held.
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private var jobs: [UnownedJob] = []
        private var jobsHead = 0
        private var timers: [(deadline: UInt64, fire: @Sendable () -> Void)] = []
        private var running = true
        private var threadAlive = true
        private var ownExecutor: UnownedSerialExecutor?
        /// The executor, held by its running thread (released when the thread ends).
        private var owner: AnyObject?
        /// After shutdown: where late jobs and timers go (in order, one at a time).
        private let fallback = DispatchQueue(label: "hapbridge.realtime.fallback")

        init() {
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

        func enqueue(_ job: UnownedJob, executor: UnownedSerialExecutor) {
            pthread_mutex_lock(mutex)
            ownExecutor = executor
            if threadAlive {
                jobs.append(job)
                pthread_cond_signal(condition)
                pthread_mutex_unlock(mutex)
            } else {
                pthread_mutex_unlock(mutex)
                fallback.async { job.runSynchronously(on: executor) }
            }
        }

        func addTimer(_ deadline: UInt64, _ fire: @escaping @Sendable () -> Void) {
            pthread_mutex_lock(mutex)
            guard threadAlive else {
                pthread_mutex_unlock(mutex)
                let now = RealTimeExecutor.monotonicMicroseconds()
                fallback.asyncAfter(deadline: .now() + .microseconds(Int(clamping: deadline > now ? deadline - now : 0)), execute: fire)
                return
            }
            let i = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
            timers.insert((deadline, fire), at: i)
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }

        func keepAlive(_ executor: AnyObject) {
            pthread_mutex_lock(mutex)
            if threadAlive { owner = executor }
            pthread_mutex_unlock(mutex)
        }

        func shutdown() {
            pthread_mutex_lock(mutex)
            running = false
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }

        func stopWithoutThread() {
            pthread_mutex_lock(mutex)
            running = false
            threadAlive = false
            pthread_mutex_unlock(mutex)
        }

        /// Jobs first (in order), then due timers; otherwise wait for either.
        func runLoop() {
            pthread_mutex_lock(mutex)
            while true {
                if jobsHead < jobs.count {
                    let job = jobs[jobsHead]
                    jobsHead += 1
                    if jobsHead == jobs.count {
                        jobs.removeAll(keepingCapacity: true)
                        jobsHead = 0
                    }
                    let executor = ownExecutor
                    pthread_mutex_unlock(mutex)
                    if let executor { job.runSynchronously(on: executor) }
                    pthread_mutex_lock(mutex)
                    continue
                }
                let now = RealTimeExecutor.monotonicMicroseconds()
                if let first = timers.first, first.deadline <= now {
                    timers.removeFirst()
                    pthread_mutex_unlock(mutex)
                    first.fire()  // a sleeper's resume enqueues its job: it runs next round
                    pthread_mutex_lock(mutex)
                    continue
                }
                if !running { break }
                if let first = timers.first {
                    var until = timespec(tv_sec: Int(first.deadline / 1_000_000), tv_nsec: Int(first.deadline % 1_000_000) * 1_000)
                    pthread_cond_timedwait(condition, mutex, &until)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
            }
            // Shut down: whatever still sleeps wakes on the fallback queue at its time.
            threadAlive = false
            let left = timers
            timers.removeAll()
            let lastReference = owner
            owner = nil
            pthread_mutex_unlock(mutex)
            defer { withExtendedLifetime(lastReference) {} }
            for t in left {
                let now = RealTimeExecutor.monotonicMicroseconds()
                let delay = t.deadline > now ? t.deadline - now : 0
                fallback.asyncAfter(deadline: .now() + .microseconds(Int(clamping: delay)), execute: t.fire)
            }
        }
    }
}
