import BridgeLink
import DeviceInterface
import Foundation
import HapticEngine
import Haptics
import SimulatedBridgeDevice

/// What streaming costs the host, in CPU seconds per second of
/// pattern (a fraction of one core), beside what the same process costs doing nothing
/// for as long (the baseline, measured in the same run).
///
/// - one board: Examples/Beethoven5.ahap (41 commands in 4.9 s) on the simulated board
///   in real time, the engine's own service task running. Goal: ≤ 2 % of a core.
/// - 16 boards from one process: the same pattern on 16 simulated boards at once; the
///   late commands and underruns summed over all of them. Goal: 0 late, 0 underruns.

/// The calling thread's CPU time, seconds.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// A pass-through transport that adds up the CPU its device spends inside each call
/// (the simulated board runs its firmware core, chip model and physics there): what
/// the board would spend on its own MCU, kept apart from what the host's engine costs.
final class DeviceCPUMeter: FrameTransport {
    let inner: SimulatedBridgeDevice
    private(set) var deviceSeconds = 0.0
    init(_ inner: SimulatedBridgeDevice) { self.inner = inner }

    private func metered<T>(_ body: () throws -> T) rethrows -> T {
        let t0 = threadCPUSeconds()
        defer { deviceSeconds += threadCPUSeconds() - t0 }
        return try body()
    }

    var summary: String { inner.summary }
    var hostMicroseconds: UInt64 { metered { inner.hostMicroseconds } }
    var isRealTime: Bool { inner.isRealTime }
    var telemetry: (any AccelerationTelemetry)? { inner.telemetry }
    func send(_ bytes: [UInt8]) throws(DeviceError) {
        let t0 = threadCPUSeconds()
        defer { deviceSeconds += threadCPUSeconds() - t0 }
        try inner.send(bytes)
    }
    func poll() -> [DeviceEvent] { metered { inner.poll() } }
    func wait(untilHostMicroseconds t: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        try await inner.wait(untilHostMicroseconds: t, isolation: isolation)
    }
    func close() { inner.close() }
}

/// User + system CPU of this process so far, seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The pattern the figure is about, found from this file (the benchmark runs from the
/// package root under scripts/bench, but need not).
func beethoven5() throws -> HapticPattern {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let path = root.appendingPathComponent("Examples/Beethoven5.ahap").path
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    return try PatternFormat.detect(fileName: path, bytes: bytes).read(bytes).pattern
}

struct CPUCostRun {
    var seconds: Double
    var cpu: Double
    var late = 0
    var underruns = 0
    var commands = 0
    var stopped = 0
    /// Of `cpu`, what the simulated boards themselves spent (firmware core, chip model,
    /// physics: their MCU's work, not the host's).
    var device = 0.0
}

/// Plays `pattern` on `boards` simulated boards in real time at once, each with its own
/// engine, and measures this process's CPU over the play (engines started beforehand).
func streamingCPUCost(pattern: HapticPattern, boards: Int) async throws -> CPUCostRun {
    var engines: [HapticEngine] = []
    for _ in 0..<boards {
        let sim = SimulatedBridgeDevice(board: try benchmarkBoard(), link: .init(latencyMicroseconds: 500), timing: .realTime)
        let engine = HapticEngine(link: BridgeLink(transport: DeviceCPUMeter(sim)), actuator: try actuatorProfile())
        try await engine.start()
        engines.append(engine)
    }
    var players: [HapticPatternPlayer] = []
    for engine in engines { players.append(try await engine.makePlayer(with: pattern)) }
    let seconds = pattern.duration + 0.1
    let clock = ContinuousClock()
    let began = clock.now
    var device0 = 0.0
    for engine in engines { device0 += await engine.withDevice { ($0 as? DeviceCPUMeter)?.deviceSeconds ?? 0 } }
    let cpu0 = processCPUSeconds()
    for player in players { try await player.start(atTime: 0) }
    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    var run = CPUCostRun(seconds: microseconds(clock.now - began) / 1e6, cpu: processCPUSeconds() - cpu0)
    for engine in engines {
        let s = await engine.statistics
        run.late += s.lateCommands
        run.underruns += s.boardUnderruns
        run.commands += s.commandsSent
        if !(await engine.isRunning) { run.stopped += 1 }
        run.device += await engine.withDevice { ($0 as? DeviceCPUMeter)?.deviceSeconds ?? 0 }
        await engine.stop()
    }
    run.device -= device0
    return run
}

/// This process asleep for `seconds`: its baseline cost (runtime threads, timers).
func idleCPUCost(seconds: Double) async -> Double {
    let cpu0 = processCPUSeconds()
    try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    return processCPUSeconds() - cpu0
}

func reportCPUCost(quick: Bool) async throws {
    let pattern = try beethoven5()
    print(String(format: "== host CPU while streaming (Examples/Beethoven5.ahap, %.2f s; simulated board, real time)", pattern.duration))
    let idle = await idleCPUCost(seconds: pattern.duration)
    print(String(format: "   baseline: this process idle for %.2f s: %.3f s CPU (%.2f %% of a core)", pattern.duration, idle, 100 * idle / pattern.duration))
    let one = try await streamingCPUCost(pattern: pattern, boards: 1)
    let share = one.cpu / one.seconds
    let host = (one.cpu - one.device) / one.seconds
    print(String(format: "   1 board: %.3f s CPU over %.2f s = %.2f %% of a core; %d commands, %d late, %d underruns", one.cpu, one.seconds, 100 * share, one.commands, one.late, one.underruns))
    print(String(format: "     of which the simulated board (firmware core, chip model, physics): %.3f s; the host (engine, link, runtime): %.3f s = %.2f %% of a core",
        one.device, one.cpu - one.device, 100 * host))
    print(String(format: "   goal, the host ≤ 2 %% of a core: %@ (%.2f %%)", host <= 0.02 ? "met" : "NOT met", 100 * host))
    let many = try await streamingCPUCost(pattern: pattern, boards: 16)
    print(String(format: "   16 boards, one process: %.3f s CPU over %.2f s = %.1f %% of a core (%d cores); %d commands, %d late, %d underruns, %d engines stopped",
        many.cpu, many.seconds, 100 * many.cpu / many.seconds, ProcessInfo.processInfo.activeProcessorCount, many.commands, many.late, many.underruns, many.stopped))
    let clean = many.late == 0 && many.underruns == 0 && many.stopped == 0
    print("   goal, 16 boards 0 late, 0 underruns: \(clean ? "met" : "NOT met")")
}
