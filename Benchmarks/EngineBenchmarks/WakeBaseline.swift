import RealTime

/// An actor on its own `RealTimeExecutor`, as the engine is: calling it wakes that
/// thread from its parked wait.
private actor ParkedThread {
    let executor: RealTimeExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    init(priority: Int32?) { executor = RealTimeExecutor(name: "wake-baseline", priority: priority) }
    func enter() -> UInt64 { RealTimeExecutor.monotonicMicroseconds() }
}

/// The machine's cost of handing a call to a parked dedicated thread: from a task's
/// call until the thread runs it (CLOCK_MONOTONIC both ends), one call a millisecond
/// so the thread is parked each time. Every engine call pays this once, so it is the
/// floor under the start latency's excess over the lead margin.
func wakeBaseline(count: Int, priority: Int32?) async -> Stats {
    let thread = ParkedThread(priority: priority)
    var out: [Double] = []
    for _ in 0..<count {
        let called = RealTimeExecutor.monotonicMicroseconds()
        let entered = await thread.enter()
        out.append(Double(entered) - Double(called))
        try? await Task.sleep(for: .milliseconds(1))
    }
    thread.executor.shutdown()
    return Stats(samples: out)
}
