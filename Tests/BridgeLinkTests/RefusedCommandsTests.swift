import BridgeLink
import BridgeProtocol
import HapticEngine
import SimulatedBoard
import Testing

@Suite("Refused commands are never lost")
struct RefusedCommandsTests {
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
}
