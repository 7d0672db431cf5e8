import BridgeLink
import BridgeProtocol
import Foundation
import HapticEngine
import SimavrBridgeDevice

/// The engine streaming to the real firmware ELF under simavr (cycle-accurate,
/// virtual time), measured at the chip: |I2C START of each CMD_RTP's RTP_INPUT
/// write − its stamp|, on the firmware's own clock.
struct SimavrTimingRun {
    /// Each CMD_RTP matched to its RTP_INPUT write.
    var rtp: Stats
    /// The first I2C write at or after each distinct stamp (what the firmware's
    /// timer controls; later commands sharing a stamp wait for the bus).
    var firstWritePerStamp: Stats
    var unmatched: Int
    var statistics: StreamStatistics
    var simulatedSeconds: Double
    var wallSeconds: Double
}

func simavrEventTiming(count: Int, packageRoot: String) async throws -> SimavrTimingRun {
    let clock = ContinuousClock()
    let wallStart = clock.now
    let sim = try SimavrBridgeDevice(packageRoot: packageRoot)
    let simStart = sim.simulationMicroseconds
    let engine = HapticEngine(link: BridgeLink(transport: StampRecorder(sim)), actuator: try actuatorProfile(), options: .init(driving: .manual))
    try await engine.start()
    let player = try await engine.makePlayer(with: alternatingSteps(count: count))
    let begin = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
    try await player.start(atTime: begin)

    // Writes only, compact; the device's logs are taken every simulated second so
    // memory stays bounded however long the run.
    var writes: [(start: Double, register: UInt8, value: UInt8)] = []
    var stamps: [UInt32] = []
    var remaining = Double(count) * stepSeconds + 0.1
    while remaining > 0 {
        let step = min(1.0, remaining)
        try await engine.advance(bySeconds: step)
        remaining -= step
        let (w, s) = await engine.withDevice { d in
            let inner = (d as! StampRecorder<SimavrBridgeDevice>).inner
            let w = inner.takeI2CLog().filter { !$0.isRead && $0.bytes.count >= 2 }.map { ($0.startBoardMicroseconds, $0.bytes[0], $0.bytes[1]) }
            let s = inner.takeSentTransfers().flatMap { (try? HostFrame.decodeAll($0.bytes)) ?? [] }.compactMap(\.stamp)
            return (w, s)
        }
        writes += w.map { (start: $0.0, register: $0.1, value: $0.2) }
        stamps += s
    }
    let statistics = await engine.statistics
    if !(await engine.isRunning) { print("   WARNING: the engine stopped during the run") }
    let simEnd = await engine.withDevice { d in (d as! StampRecorder<SimavrBridgeDevice>).inner.simulationMicroseconds }
    let wall = microseconds(clock.now - wallStart) / 1e6
    await engine.stop()

    let first = UInt32(begin * 1e6)
    // The simavr log times each START to the cycle: 1 µs of rounding, no more.
    let rtpWrites = writes.filter { $0.register == rtpInputRegister }.map { (time: $0.start, value: $0.value) }
    let (rtp, unmatched) = await engine.withDevice { d in
        (d as! StampRecorder<SimavrBridgeDevice>).timingErrors(writes: rtpWrites, from: first, earlyTolerance: 1)
    }
    var firstWrite: [Double] = []
    var j = 0
    for stamp in Set(stamps.filter { $0 >= first }).sorted() {
        while j < writes.count, writes[j].start < Double(stamp) - 1 { j += 1 }
        guard j < writes.count else { break }
        firstWrite.append(writes[j].start - Double(stamp))
    }
    return SimavrTimingRun(
        rtp: Stats(samples: rtp), firstWritePerStamp: Stats(samples: firstWrite), unmatched: unmatched, statistics: statistics,
        simulatedSeconds: (simEnd - simStart) / 1e6, wallSeconds: wall)
}

func reportSimavr(_ run: SimavrTimingRun, expected: Int) {
    print(run.rtp.line("event timing |RTP START − stamp|, firmware ELF (simavr)"))
    printGoal("event timing ≤ 10 µs at p99.9", value: run.rtp.percentile(99.9), limit: 10)
    print(run.firstWritePerStamp.line("  first I2C write per stamp − stamp"))
    let s = run.statistics
    print("   \(s.commandsSent) commands sent, \(s.lateCommands) late, \(s.boardUnderruns) board underruns, \(s.rejectedFrames) rejected; \(run.unmatched) stamps without a chip write; queue high water \(s.queueHighWater)")
    print(String(format: "   simavr: %.2f s simulated in %.2f s wall (%.2f× real time)", run.simulatedSeconds, run.wallSeconds, run.simulatedSeconds / max(run.wallSeconds, 1e-9)))
    if run.rtp.samples.count < expected { print("   note: \(run.rtp.samples.count) RTP commands for \(expected) events (a steady amplitude is sent once)") }
}
