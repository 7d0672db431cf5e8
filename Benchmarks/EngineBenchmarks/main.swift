// The engine's timing figures on the simulated board, as percentiles, beside this
// machine's own baseline measured in the same run. Run it with `scripts/bench`
// (release build).
//
// usage: EngineBenchmarks [--quick]
//
// What each figure is, honestly:
// - baseline: Task.sleep(until:) wake-up lateness at a 1 ms period on this machine
//   (the figure timing.md compares everything with).
// - start latency, host path: wall-clock time of `player.start()` (immediate) until
//   it returns, by which time the stamped RTP frame has been handed to the board's
//   firmware (in-process link, 0 µs latency).
// - start latency, board: first RTP_INPUT write on the chip minus the board time at
//   the call, in the simulated board's virtual time: the scheduler's lead (link
//   delay + clock error + the lead margin option, 300 µs by default; also shown at
//   50 µs), deterministic by construction.
// - event timing error: |I2C write time − target| for 10,000 transients streamed
//   through the look-ahead scheduler, in virtual time. The board runs stamps from
//   its timer, so this is exactly 0 unless the host sends late or the queue
//   underruns: it checks the scheduler, not wall-clock jitter. The real ELF under
//   simavr is not measured here (not done).
import Actuators
import Foundation
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice

struct Stats {
    var samples: [Double]
    func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
    func line(_ name: String) -> String {
        String(format: "%@ n=%6d  p50 %9.2f  p99 %9.2f  p99.9 %9.2f  max %9.2f µs", name.padding(toLength: 50, withPad: " ", startingAt: 0) as NSString, samples.count,
               percentile(50), percentile(99), percentile(99.9), samples.max() ?? .nan)
    }
}

func microseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

func actuatorProfile() throws -> ActuatorProfile {
    try ActuatorProfileLoader.resolve("pmd-c10-100")
}

func makeEngine(latency: UInt64, margin: Int64 = 300) throws -> HapticEngine {
    let p = try actuatorProfile()
    let board = SimulatedBoard(configuration: .init(variant: .drv2605L, load: .actuator(Actuator(profile: p)), recordsAcceleration: false))
    let device = SimulatedBridgeDevice(board: board, link: .init(latencyMicroseconds: latency))
    return HapticEngine(device: device, actuator: p, options: .init(driving: .manual, leadMarginMicroseconds: margin))
}

func baseline(count: Int) async -> Stats {
    let clock = ContinuousClock()
    var next = clock.now.advanced(by: .milliseconds(1))
    var out: [Double] = []
    for _ in 0..<count {
        try? await Task.sleep(until: next, clock: clock)
        out.append(microseconds(clock.now - next))
        next = next.advanced(by: .milliseconds(1))
    }
    return Stats(samples: out)
}

func startLatency(count: Int, margin: Int64) async throws -> (host: Stats, board: Stats) {
    let engine = try makeEngine(latency: 0, margin: margin)
    try await engine.start()
    let player = try await engine.makePlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 0.01, intensity: 1, sharpness: 0.5)]))
    let clock = ContinuousClock()
    var host: [Double] = [], board: [Double] = []
    for _ in 0..<count {
        let before = await engine.withDevice { d -> (Int64, Int) in
            let sim = d as! SimulatedBridgeDevice
            sim.board.clearI2CLog()
            return (Int64(sim.board.boardTime), 0)
        }
        let t0 = clock.now
        try await player.start()
        host.append(microseconds(clock.now - t0))
        try await engine.advance(bySeconds: 0.02)
        let first = await engine.withDevice { d in
            (d as! SimulatedBridgeDevice).board.registerWrites.first { $0.register == 0x02 && $0.value != 0 }.map { Int64($0.boardTime) }
        }
        if let f = first { board.append(Double(f - before.0)) }
        try await engine.advance(bySeconds: 0.01)
    }
    await engine.stop()
    return (Stats(samples: host), Stats(samples: board))
}

func eventTiming(count: Int) async throws -> (Stats, StreamStatistics) {
    let engine = try makeEngine(latency: 500)
    try await engine.start()
    // 25 ms apart: each burst (overdrive, brake) ends in silence, so the board's
    // continuous-drive limit (30 s) never trips over the 250 s run.
    let spacing = 0.025
    let pattern = HapticPattern(events: (0..<count).map { .transient(at: Double($0) * spacing, intensity: 1, sharpness: 1) })
    let player = try await engine.makePlayer(with: pattern)
    let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
    let start = Int64((t * 1e6).rounded())
    try await player.start(atTime: t)
    var errors: [Double] = []
    var next = 0
    let total = Double(count) * spacing + 0.1
    var elapsed = 0.0
    while elapsed < total {
        try await engine.advance(bySeconds: 1)
        elapsed += 1
        // Read and forget the log as we go (the firmware polls STATUS every 20 ms).
        let writes = await engine.withDevice { d -> [Int64] in
            let sim = d as! SimulatedBridgeDevice
            let w = sim.board.registerWrites.filter { $0.register == 0x02 && $0.value == 127 }.map { Int64($0.time) }
            sim.board.clearI2CLog()
            return w
        }
        let boardToVirtual = await engine.withDevice { d in
            let sim = d as! SimulatedBridgeDevice
            return Int64(sim.board.time) - Int64(sim.board.boardTime)
        }
        for w in writes where next < count {
            let target = start + Int64((Double(next) * spacing * 1e6).rounded()) + boardToVirtual
            errors.append(Double(abs(w - target)))
            next += 1
        }
    }
    let s = await engine.statistics
    if !(await engine.isRunning) { print("   WARNING: the engine stopped during the run") }
    await engine.stop()
    return (Stats(samples: errors), s)
}

func run() async throws {
    let quick = CommandLine.arguments.contains("--quick")
    print("== engine on the simulated board (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
    print(await baseline(count: quick ? 500 : 2000).line("baseline: Task.sleep lateness, 1 ms period"))
    let (host, board) = try await startLatency(count: quick ? 200 : 2000, margin: 300)
    print(host.line("start latency, host path (wall clock)"))
    print(board.line("start latency to I2C write, default 300 µs margin"))
    let (_, tight) = try await startLatency(count: quick ? 200 : 2000, margin: 50)
    print(tight.line("start latency to I2C write, 50 µs margin"))
    let (timing, stats) = try await eventTiming(count: quick ? 1000 : 10_000)
    print(timing.line("event timing error |write − target| (virtual)"))
    print("   stream: \(stats.commandsSent) commands, \(stats.lateCommands) late, \(stats.boardUnderruns) underruns, \(stats.rejectedFrames) rejected, queue high water \(stats.queueHighWater)")
    if timing.samples.count < (quick ? 1000 : 10_000) { print("   WARNING: only \(timing.samples.count) events were seen on the chip") }
}

do { try await run() } catch {
    FileHandle.standardError.write(Data("EngineBenchmarks: \(error)\n".utf8))
    exit(1)
}
