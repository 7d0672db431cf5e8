import BridgeLink
import BridgeProtocol
import Foundation
import HapticEngine
import SimavrBridgeDevice

/// The engine streaming to the real firmware ELF under simavr (cycle-accurate,
/// virtual time), measured at the chip on the firmware's own clock: |STOP of each
/// CMD_RTP's RTP_INPUT write − its stamp| (the latch: the chip takes the value at the
/// STOP, and the firmware aims it at the stamp), with the START-based figure beside it.
struct SimavrTimingRun {
    /// Each CMD_RTP matched to its RTP_INPUT write: |START − stamp|.
    var rtp: Stats
    /// The same writes: |STOP − stamp|, when the chip took the value.
    var rtpLatch: Stats
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
    var writes: [(start: Double, stop: Double, register: UInt8, value: UInt8)] = []
    var stamps: [UInt32] = []
    var remaining = Double(count) * stepSeconds + 0.1
    while remaining > 0 {
        let step = min(1.0, remaining)
        try await engine.advance(bySeconds: step)
        remaining -= step
        let (w, s) = await engine.withDevice { d in
            let inner = (d as! StampRecorder<SimavrBridgeDevice>).inner
            let w = inner.takeI2CLog().filter { !$0.isRead && $0.bytes.count >= 2 }.map { ($0.startBoardMicroseconds, $0.stopBoardMicroseconds, $0.bytes[0], $0.bytes[1]) }
            let s = inner.takeSentTransfers().flatMap { (try? HostFrame.decodeAll($0.bytes)) ?? [] }.compactMap(\.stamp)
            return (w, s)
        }
        writes += w.map { (start: $0.0, stop: $0.1, register: $0.2, value: $0.3) }
        stamps += s
    }
    let statistics = await engine.statistics
    if !(await engine.isRunning) { print("   WARNING: the engine stopped during the run") }
    let simEnd = await engine.withDevice { d in (d as! StampRecorder<SimavrBridgeDevice>).inner.simulationMicroseconds }
    let wall = microseconds(clock.now - wallStart) / 1e6
    await engine.stop()

    let first = UInt32(begin * 1e6)
    // The simavr log times START and STOP to the cycle. The firmware starts a write
    // ~82 µs (400 kHz) before its stamp so that its STOP lands on it: STARTs are
    // matched up to 400 µs early, STOPs up to 2 µs.
    let rtpWrites = writes.filter { $0.register == rtpInputRegister }
    let (rtp, unmatched, rtpLatch) = await engine.withDevice { d in
        let r = d as! StampRecorder<SimavrBridgeDevice>
        let start = r.timingErrors(writes: rtpWrites.map { (time: $0.start, value: $0.value) }, from: first, earlyTolerance: 400)
        let latch = r.timingErrors(writes: rtpWrites.map { (time: $0.stop, value: $0.value) }, from: first, earlyTolerance: 2)
        return (start.errors, latch.unmatched, latch.errors)
    }
    var firstWrite: [Double] = []
    var j = 0
    for stamp in Set(stamps.filter { $0 >= first }).sorted() {
        while j < writes.count, writes[j].stop < Double(stamp) - 2 { j += 1 }
        guard j < writes.count else { break }
        firstWrite.append(writes[j].stop - Double(stamp))
    }
    return SimavrTimingRun(
        rtp: Stats(samples: rtp), rtpLatch: Stats(samples: rtpLatch), firstWritePerStamp: Stats(samples: firstWrite), unmatched: unmatched, statistics: statistics,
        simulatedSeconds: (simEnd - simStart) / 1e6, wallSeconds: wall)
}

func reportSimavr(_ run: SimavrTimingRun, expected: Int) {
    print(run.rtpLatch.line("event timing |RTP latch − stamp|, firmware ELF (simavr)"))
    printGoal("latch timing ≤ 1 µs at p99.9", value: run.rtpLatch.percentile(99.9), limit: 1)
    print(run.rtp.line("  event timing |RTP START − stamp| (the old figure; the write now starts ~82 µs early)"))
    print(run.firstWritePerStamp.line("  first I2C write per stamp: its STOP − stamp"))
    let s = run.statistics
    print("   \(s.commandsSent) commands sent, \(s.lateCommands) late, \(s.boardUnderruns) board underruns, \(s.rejectedFrames) rejected; \(run.unmatched) stamps without a chip write; queue high water \(s.queueHighWater)")
    print(String(format: "   simavr: %.2f s simulated in %.2f s wall (%.2f× real time)", run.simulatedSeconds, run.wallSeconds, run.simulatedSeconds / max(run.wallSeconds, 1e-9)))
    if run.rtp.samples.count < expected { print("   note: \(run.rtp.samples.count) RTP commands for \(expected) events (a steady amplitude is sent once)") }
}
