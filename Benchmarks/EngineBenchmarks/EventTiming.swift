import BridgeLink
import BridgeProtocol
import Foundation
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice

struct TimingRun {
    var errors: Stats
    var unmatched: Int
    var statistics: StreamStatistics
}

/// |RTP_INPUT write − stamp| for `count` 2 ms steps streamed through the look-ahead
/// scheduler to the simulated board, with a 500 µs link. In virtual time this
/// checks the scheduler (every command in the queue before its stamp gives 0); in
/// real time the host's wake-ups and work are real and a command that misses its
/// stamp shows as error.
func simulatedBoardEventTiming(count: Int, timing: SimulatedTiming, realTimePriority: Bool = true) async throws -> TimingRun {
    let sim = SimulatedBridgeDevice(board: try benchmarkBoard(), link: .init(latencyMicroseconds: 500), timing: timing)
    let device = StampRecorder(sim)
    var options = HapticEngine.Options(driving: timing == .virtual ? .manual : .automatic)
    if !realTimePriority { options.serviceThreadPriority = nil }
    let engine = HapticEngine(link: BridgeLink(transport: device), actuator: try actuatorProfile(), options: options)
    try await engine.start()
    if timing == .realTime { print("   engine service thread: \(engine.serviceThreadScheduling)") }
    let player = try await engine.makePlayer(with: alternatingSteps(count: count))
    let begin = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
    try await player.start(atTime: begin)
    let seconds = Double(count) * stepSeconds + 0.1
    if timing == .virtual {
        try await engine.advance(bySeconds: seconds)
    } else {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }
    let statistics = await engine.statistics
    if !(await engine.isRunning) { print("   WARNING: the engine stopped during the run") }
    await engine.stop()
    let (errors, unmatched) = await engine.withDevice { d in
        let r = d as! StampRecorder<SimulatedBridgeDevice>
        return r.timingErrors(writes: takeRTPWrites(r.inner.board), from: UInt32(truncatingIfNeeded: Int64(begin * 1e6)))
    }
    return TimingRun(errors: Stats(samples: errors), unmatched: unmatched, statistics: statistics)
}
