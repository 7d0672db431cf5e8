import BridgeLink
import Foundation
import HapticEngine
import Haptics
import RealTime
import SimulatedBoard
import SimulatedBridgeDevice

/// Wall-clock time of `player.start()` (immediate) until it returns, on a
/// virtual-time board behind an in-process link: the host's own path to the board,
/// by which time the stamped RTP frame is in the firmware's queue.
func hostPathLatency(count: Int) async throws -> (returned: Stats, handedOver: Stats) {
    let device = SimulatedBridgeDevice(board: try benchmarkBoard(), link: .init(latencyMicroseconds: 0))
    let sendTimes = SendTimes(device)
    let engine = HapticEngine(link: BridgeLink(transport: sendTimes), actuator: try actuatorProfile(), options: .init(driving: .manual))
    try await engine.start()
    let player = try await engine.makePlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 0.01, intensity: 1, sharpness: 0.5)]))
    let clock = ContinuousClock()
    var out: [Double] = []
    var handed: [Double] = []
    for _ in 0..<count {
        let t0 = clock.now
        let mark = RealTimeExecutor.monotonicMicroseconds()
        try await player.start()
        out.append(microseconds(clock.now - t0))
        // The first transfer after the call: the start's own frame (nothing else is due).
        let first = await engine.withDevice { (($0 as? SendTimes)?.sends.first { $0.hostMicroseconds >= mark })?.hostMicroseconds }
        handed.append(first.map { Double($0) - Double(mark) } ?? .infinity)
        try await engine.advance(bySeconds: 0.03)
        await engine.withDevice { (($0 as? SendTimes)?.inner as? SimulatedBridgeDevice)?.board.clearI2CLog() }
    }
    await engine.stop()
    return (Stats(samples: out), Stats(samples: handed))
}

/// `start(atTime: now)` until the first RTP_INPUT write at the chip, on the
/// simulated board running in real time (its clock is the host's): the engine's
/// automatic service task, the host's scheduling, the lead it stamps with and the
/// firmware's timer all in the figure. In-process link (0 µs).
func realTimeStartLatency(count: Int, margin: Int64?) async throws -> Stats {
    let device = SimulatedBridgeDevice(board: try benchmarkBoard(), link: .init(latencyMicroseconds: 0, hostOffsetMicroseconds: 0), timing: .realTime)
    let origin = device.realTimeOrigin
    var options = HapticEngine.Options(driving: .automatic)
    if let margin { options.leadMarginMicroseconds = margin }
    let engine = HapticEngine(link: BridgeLink(transport: device), actuator: try actuatorProfile(), options: options)
    try await engine.start()
    let player = try await engine.makePlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 0.004, intensity: 1, sharpness: 0.5)]))
    var out: [Double] = []
    var slow = 0
    for _ in 0..<count {
        // The board runs up to the present first, as hardware always has: its
        // simulation of the 6 ms idle gap is not the host's start path.
        await engine.withDevice { d in
            let sim = d as! SimulatedBridgeDevice
            sim.board.clearI2CLog()
            sim.runToPresent()
        }
        let t0 = ContinuousClock.now
        try await player.start()
        // Every start counts: wait for its write however long it takes (up to a
        // second, which then counts as a second), never drop a slow one.
        var first: UInt64?
        while first == nil, ContinuousClock.now - t0 < .seconds(1) {
            try await Task.sleep(for: .milliseconds(2))
            first = await engine.withDevice { d -> UInt64? in
                let sim = d as! SimulatedBridgeDevice
                return sim.board.registerWrites.first { $0.register == rtpInputRegister && $0.value != 0 }.map(\.time)
            }
        }
        let called = microseconds(t0 - origin)
        if let first { out.append(Double(first) - called) } else {
            out.append(1_000_000)
            slow += 1
        }
        try await Task.sleep(for: .milliseconds(6))
    }
    await engine.stop()
    if slow > 0 { print("   \(slow) starts wrote nothing within 1 s (counted as 1 s)") }
    return Stats(samples: out)
}
