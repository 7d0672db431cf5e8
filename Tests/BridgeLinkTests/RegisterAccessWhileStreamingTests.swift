import Actuators
import BridgeLink
import DRV2605
import DeviceInterface
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

/// An engine in manual driving on the simulated board, keeping every command it sends:
/// the register reads below drive it themselves (as `advance` would), so the run is
/// the same every time and nothing sleeps.
func streamingEngine(latency: UInt64 = 500) throws -> HapticEngine {
    let p = try profile()
    let device = SimulatedBridgeDevice(
        board: SimulatedBoard(configuration: .init(profile: p, variant: .drv2605L)), link: .init(latencyMicroseconds: latency))
    var options = HapticEngine.Options(driving: .manual)
    options.keepsSentCommandLog = true
    return HapticEngine(link: BridgeLink(transport: device), actuator: p, options: options)
}

/// `count` continuous events of `step` seconds, alternating intensity: a drive change
/// every step.
func alternatingSteps(_ count: Int, step: Double = 0.002) -> HapticPattern {
    HapticPattern(events: (0..<count).map { i in
        .continuous(at: Double(i) * step, duration: step, intensity: i % 2 == 0 ? 1.0 : 0.6, sharpness: 0.5)
    })
}

/// The simulated board behind an engine built by `streamingEngine`.
func onSimulatedBoard<T: Sendable>(_ engine: HapticEngine, _ body: @Sendable (SimulatedBoard) -> T) async -> T {
    await engine.withDevice { device in
        guard let sim = device as? SimulatedBridgeDevice else { preconditionFailure("streamingEngine builds on the simulated board") }
        return body(sim.board)
    }
}

@Suite("Register access while the engine streams")
struct RegisterAccessWhileStreamingTests {
    @Test(
        "a register read 400 times a second through a 10,000-event stream: every read answered with the register's value, 0 late, 0 underruns, and the board ran none where a stamp fell due before it ended"
    )
    func readsDuringTenThousandEvents() async throws {
        let engine = try streamingEngine()
        try await engine.start()
        let events = 10_000
        let player = try await engine.makePlayer(with: alternatingSteps(events))
        let bus = engine.i2cBus
        // RATED_VOLTAGE: the engine's setup wrote it; the firmware never reads it, so
        // every read of it in the chip's log is one of ours.
        let rated: UInt8 = 0x16
        let before = try await bus.readByte(address: 0x5A, register: rated)
        try await player.start(atTime: 0)
        let end = await engine.currentTime + Double(events) * 0.002 + 0.05
        // One read every 2.5 ms of board time, on schedule (a read takes a round
        // trip and whatever wait its gap needs, well under 2.5 ms).
        var reads = 0
        var nextAt = await engine.currentTime
        while nextAt < end {
            let value = try await bus.readByte(address: 0x5A, register: rated)
            #expect(value == before)
            reads += 1
            nextAt += 0.002_5
            let now = await engine.currentTime
            if nextAt > now { try await bus.wait(microseconds: UInt64((nextAt - now) * 1e6)) }
        }
        let s = await engine.statistics
        #expect(await engine.isRunning)
        #expect(s.commandsSent >= events)
        #expect(s.lateCommands == 0)
        #expect(s.boardUnderruns == 0)
        #expect(s.rejectedFrames == 0)
        #expect(s.untimedAnswered == reads + 1)
        // 400 a second over the 20 s stream: every one on schedule.
        #expect(reads >= 8_000, "\(reads) reads")

        // The gap rule, as the board kept it: a read run at t holds the bus until t +
        // its bus time, during which a stamped command would start late; none of the
        // engine's stamps lies there, nor within the guard after it (PROTOCOL.md,
        // "Untimed I2C").
        let busTime = UntimedRequest.read(address: 0x5A, register: rated, count: 1).busMicroseconds
        let readTimes = await onSimulatedBoard(engine) { board in
            board.i2cLog.filter { $0.kind == .read && $0.register == rated }.map { Int64($0.boardTime) }
        }
        let stamps = await engine.sentCommands.map(\.time)
        #expect(readTimes.count == reads + 1)
        var crowded = 0
        var j = 0
        for t in readTimes {
            while j < stamps.count, stamps[j] <= t { j += 1 }
            if j < stamps.count, stamps[j] <= t + busTime + 100 { crowded += 1 }
        }
        #expect(crowded == 0, "\(crowded) reads decoded with a stamp due within their bus time")
        await engine.stop()
    }

    @Test("register writes and reads through the engine's bus work before start, after stop, and an address nobody acknowledges is the driver's typed error")
    func busWorksStoppedToo() async throws {
        let engine = try streamingEngine()
        let bus = engine.i2cBus
        // No session yet: the engine opens one (HELLO) for the bus.
        try await bus.write(address: 0x5A, register: 0x16, bytes: [0x50])
        #expect(try await bus.readByte(address: 0x5A, register: 0x16) == 0x50)
        await #expect(throws: I2CError.addressNotAcknowledged(address: 0x19)) {
            _ = try await bus.read(address: 0x19, register: 0x0F, count: 1)
        }
        try await engine.start()
        await engine.stop()
        #expect(try await bus.readByte(address: 0x5A, register: 0x00) & 0xE0 != 0)
    }
}

@Suite("Register access with the service loop running")
struct RegisterAccessServiceLoopTests {
    @Test("on a real clock with the engine's own service loop, the bus's reads are sent and answered by the loop")
    func readsThroughTheServiceLoop() async throws {
        let p = try profile()
        let device = SimulatedBridgeDevice(
            board: SimulatedBoard(configuration: .init(profile: p, variant: .drv2605L)), link: .init(latencyMicroseconds: 500), timing: .realTime)
        var options = HapticEngine.Options(driving: .automatic)
        options.serviceThreadPriority = nil
        // A real clock inside a parallel test run on a loaded host (the example packages
        // compile beside it): what this pins is the bus path, not how fast the board
        // answers. 5 s was once not enough on CI's two cores.
        options.startTimeoutMicroseconds = 30_000_000
        let link = BridgeLink(transport: device)
        link.replyTimeoutMicroseconds = 30_000_000  // the same: a starved process answers late, not never
        let engine = HapticEngine(link: link, actuator: p, options: options)
        try await engine.start()
        let bus = engine.i2cBus
        for _ in 0..<20 {
            let status = try await bus.readByte(address: 0x5A, register: 0x00)
            #expect(status >> 5 == 7, "DEVICE_ID of a DRV2605L")
        }
        #expect(await engine.statistics.untimedAnswered == 20)
        await engine.close()
    }
}
