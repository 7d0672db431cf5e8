import Foundation
import RealTime
#if canImport(Glibc)
import Glibc
#endif

/// What one timed loop measured: lateness of each wake-up (actual − target, µs) and
/// the CPU the loop's thread used per second of wall time.
struct LoopFigures {
    var errors: Stats
    var cpuPerSecond: Double
    var scheduling: ThreadScheduling
}

/// The machine's own baseline, as cyclictest measures it: a dedicated thread at the
/// priority asked for, woken by clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC
/// every `periodMicroseconds`, its lateness recorded each time. With no spin this is
/// how precisely the kernel alone wakes a thread here, the figure host timing is read
/// against.
///
/// With `spinMicroseconds`, the thread sleeps until that long before each tick and
/// spins onto it: the hosted timer's schedule without the USB, and so the floor for
/// host-timed writes here. A tick reached more than 100 µs late then means the thread
/// woke later than the spin covers or lost its CPU while spinning (an interrupt, the
/// hypervisor), which nothing on the thread can prevent.
func cyclicBaseline(count: Int, periodMicroseconds: UInt64, priority: Int32?, spinMicroseconds: UInt64 = 0) -> LoopFigures {
    runOnDedicatedThread(name: "cyclic-baseline", priority: priority) { scheduling in
        var errors = [Double](repeating: 0, count: count)
        let cpuStart = threadCPUNanoseconds()
        let wallStart = monotonicNanoseconds()
        var target = wallStart + 10 * periodMicroseconds * 1000
        for i in 0..<count {
            sleepUntil(nanoseconds: target - spinMicroseconds * 1000)
            var now = monotonicNanoseconds()
            while spinMicroseconds > 0 && now < target { now = monotonicNanoseconds() }
            errors[i] = Double(Int64(bitPattern: now &- target)) / 1000
            target += periodMicroseconds * 1000
        }
        let wall = Double(monotonicNanoseconds() - wallStart) / 1e9
        let cpu = Double(threadCPUNanoseconds() - cpuStart) / 1e9
        return LoopFigures(errors: Stats(samples: errors), cpuPerSecond: cpu / wall, scheduling: scheduling)
    }
}

/// Runs `body` on a new thread scheduled as asked (SCHED_FIFO at `priority`, or the
/// normal class), 1 ns timer slack either way, and waits for its result.
func runOnDedicatedThread(name: String, priority: Int32?, _ body: @escaping @Sendable (ThreadScheduling) -> LoopFigures) -> LoopFigures {
    let box = ResultBox()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        // As the hosted timer thread is set up: SCHED_FIFO, else the normal class with
        // 1 ns timer slack.
        let scheduling = priority.map { ThreadScheduling.adoptForCurrentThread(priority: $0) }
            ?? .normal(reason: "asked for the normal class")
        ThreadScheduling.reduceTimerSlack()
        box.value = body(scheduling)
        done.signal()
    }
    thread.name = name
    thread.start()
    done.wait()
    // The thread stores its result before it signals; an empty figure if it could not.
    return box.value ?? LoopFigures(errors: Stats(samples: []), cpuPerSecond: 0, scheduling: .normal(reason: "the thread did not run"))
}

/// The dedicated thread's result: written once, before the semaphore is signalled.
private final class ResultBox: @unchecked Sendable { var value: LoopFigures? }

func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func sleepUntil(nanoseconds: UInt64) {
    var ts = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

extension ThreadScheduling {
    /// "SCHED_FIFO 30" or "normal class": for a figure's name.
    var shortName: String {
        switch self {
        case .realTime(let p): "SCHED_FIFO \(p)"
        case .normal: "normal class"
        }
    }
}
