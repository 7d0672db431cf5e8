import BridgeLink
import BridgeProtocol
import HapticEngine
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

@Suite("Refused commands are never lost")
struct RefusedCommandsTests {
    /// An engine on the simulated board that rides a long hold out rather than stop for
    /// it, so everything the board refuses must go again.
    static func ridingOutEngine() throws -> HapticEngine {
        let p = try profile()
        let device = SimulatedBridgeDevice(board: SimulatedBoard(configuration: .init(profile: p, variant: .drv2605L)), link: .init(latencyMicroseconds: 500))
        var options = HapticEngine.Options(driving: .manual)
        options.keepsSentCommandLog = true
        options.overloadLagMicroseconds = 10_000_000
        options.keepAliveMilliseconds = 5_000
        return HapticEngine(link: BridgeLink(transport: device), actuator: p, options: options)
    }

    @Test(
        "a board whose timer is held back 30 ms fills its queue and refuses commands (QUEUE_FULL); the link takes the refused run back and sends it again: the chip gets every compiled drive value in order, the refusals are counted by reason, none is dropped"
    )
    func aLaggingBoardLosesNothing() async throws {
        let engine = try streamingEngine()
        try await engine.start()
        let player = try await engine.makePlayer(with: alternatingSteps(1_000))
        try await player.start(atTime: 0)
        // The deep stream fills the board's queue (250 ms ahead, a command a step).
        try await engine.advance(bySeconds: 0.4)
        await onSimulatedBoard(engine) { board in board.timerHold = board.time..<board.time + 30_000 }
        try await engine.advance(bySeconds: 2)
        let s = await engine.statistics
        #expect(await engine.isRunning, "the engine stopped: the lag stayed under its overload limit")
        #expect(s.refusals[.queueFull] > 0, "the board refused nothing: \(s.refusals)")
        #expect(s.resentCommands >= s.refusals[.queueFull])
        #expect(s.boardUnderruns > 0, "the held timer ran commands late")

        // What the chip received equals what was compiled: every RTP value, in order,
        // none before its stamp.
        let sent = await engine.sentCommands.compactMap { c -> (time: Int64, amplitude: Int8)? in
            if case .rtp(let a) = c.command { return (c.time, a) }
            return nil
        }
        let written = await onSimulatedBoard(engine) { board in
            board.registerWrites.filter { $0.register == 0x02 }.map { (time: Int64($0.boardTime), amplitude: Int8(bitPattern: $0.value)) }
        }
        let firstStamp = sent.first?.time ?? 0
        let played = written.filter { $0.time >= firstStamp }
        #expect(played.map(\.amplitude) == sent.map(\.amplitude))
        #expect(zip(played, sent).allSatisfy { $0.time >= $1.time })
        await engine.stop()
    }

    @Test(
        "a board whose timer is held 400 ms, ridden out rather than stopped for: every refused command goes again, none runs twice, and the board's own count of what ran settles the books (the chip's writes the witness)"
    )
    func aLongHoldWithAWrappedBacklogLosesNothing() async throws {
        let engine = try Self.ridingOutEngine()
        try await engine.start()
        let player = try await engine.makePlayer(with: alternatingSteps(1_000, step: 0.001))
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 0.2)
        await onSimulatedBoard(engine) { board in board.timerHold = board.time..<board.time + 400_000 }
        try await engine.advance(bySeconds: 1.5)
        #expect(await engine.settleDelivery())
        let s = await engine.statistics
        #expect(s.refusals[.queueFull] > 0, "\(s.refusals)")
        #expect(s.commandsUndelivered == 0, "\(s)")
        #expect(s.commandsRun == s.commandsSent - s.commandsWithdrawn - s.commandsFlushed, "\(s)")

        // The chip got every drive value compiled, once each, in order; the board's count
        // and the link's list of what ran say the same.
        let sent = await engine.sentCommands.compactMap { c -> Int8? in
            if case .rtp(let a) = c.command { return a }
            return nil
        }
        let ran = await engine.ranCommands.compactMap { c -> Int8? in
            if case .rtp(let a) = c.command { return a }
            return nil
        }
        let firstStamp = await engine.sentCommands.first?.time ?? 0
        let written = await onSimulatedBoard(engine) { board in
            board.registerWrites.filter { $0.register == 0x02 && Int64($0.boardTime) >= firstStamp }.map { Int8(bitPattern: $0.value) }
        }
        #expect(written == sent)
        #expect(ran == sent)
        await engine.stop()
    }

    @Test(
        "a board held whole for 400 ms (its clock, timer and USB intake, as simavr holds the ELF) takes hundreds of commands in silently as it catches up: fewer frames than a sequence number spans are ever unaccounted for, so each refusal names its own command, and what the link says ran is exactly what the chip was written, once each, in order"
    )
    func aBoardHeldWholeHasEachRefusalNamed() async throws {
        let engine = try Self.ridingOutEngine()
        try await engine.start()
        // A drive change every millisecond for 3 s (as NothingLostTests' play at `--playback-rate 2`).
        let player = try await engine.makePlayer(with: alternatingSteps(3_000, step: 0.001))
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 0.3)
        await engine.withDevice { ($0 as? SimulatedBridgeDevice)?.stall(forMicroseconds: 400_000) }
        var mostUnaccounted = 0
        for _ in 0..<3_500 {
            try await engine.advance(bySeconds: 0.001)
            mostUnaccounted = max(mostUnaccounted, await engine.withLink { $0.frames.count })
        }
        #expect(mostUnaccounted < SentFrames.sequenceSpan, "\(mostUnaccounted) frames unaccounted for at once")
        #expect(await engine.settleDelivery())
        let s = await engine.statistics
        #expect(s.refusals[.queueFull] > 0, "the board refused nothing: \(s.refusals)")
        #expect(s.commandsUndelivered == 0, "\(s)")

        let ran = await engine.ranCommands.compactMap { c -> Int8? in
            if case .rtp(let a) = c.command { return a }
            return nil
        }
        let firstStamp = await engine.sentCommands.first?.time ?? 0
        let written = await onSimulatedBoard(engine) { board in
            board.registerWrites.filter { $0.register == 0x02 && Int64($0.boardTime) >= firstStamp }.map { Int8(bitPattern: $0.value) }
        }
        let running = await engine.isRunning
        #expect(written.count > 2_000, "\(s) running \(running)")
        #expect(written == ran, "the chip got \(written.count) drive values, the link says \(ran.count) ran")
        await engine.stop()
    }
}
