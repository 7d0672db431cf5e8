import BridgeProtocol
import DRV2605
import SimulatedBoard
import Testing
import TestSupport

@Suite("Simulated board refuses bad frames and stops on its own")
struct SafetyTests {
    /// A board with the C10-100, a session open at 1 ms and the actuator set up at 2 ms.
    func openSession(keepAliveMilliseconds: UInt16 = 2_000) async throws -> Host {
        let c10 = try profile("pmd-c10-100")
        let board = SimulatedBoard(profile: c10)
        var host = Host(board: board)
        try board.advance(to: 1_000)
        host.send { $0.hello(keepAliveMilliseconds: keepAliveMilliseconds) }
        for (register, value) in try await setupWrites(for: c10) {
            host.send { $0.registerWrite(at: 2_000, register: register, value: value) }
        }
        #expect(try host.frames().map(\.type) == [.helloReply])
        return host
    }

    @Test func aFrameWithABadCRCIsNakedAndNeverExecutedAndTheRetransmissionIs() async throws {
        var host = try await openSession()
        let board = host.board
        let corruptedSequence = host.encoder.nextSequence
        var corrupted = host.encoder.rtp(at: 20_000, amplitude: 0x7F)
        corrupted[corrupted.count - 1] ^= 0x01  // one flipped bit in the CRC
        board.send(corrupted)
        let nak = try #require(try host.frames().first?.nak)
        #expect(nak.reason == .crc)
        #expect(nak.sequence == corruptedSequence)
        #expect(nak.expectedSequence == corruptedSequence)

        // Resynchronise as PROTOCOL.md asks, then send the same sequence number again,
        // stamped later, with a different amplitude.
        board.send(HostFrameEncoder.resynchronisation)
        host.encoder.nextSequence = nak.expectedSequence
        host.send { $0.rtp(at: 40_000, amplitude: 0x40) }
        try board.advance(to: 60_000)
        #expect(try host.frames().allSatisfy { $0.nak == nil })

        let rtpWrites = board.registerWrites.filter { $0.register == RegisterAddress.rtpInput.rawValue && $0.time > 1_000 }
        #expect(rtpWrites == [RegisterWrite(time: 40_000, boardTime: 40_000, register: RegisterAddress.rtpInput.rawValue, value: 0x40)])
        #expect(board.peakAcceleration(from: 0, to: 40_000) == 0)
        #expect(board.peakAcceleration(from: 40_000, to: 60_000) > 0.1)
        host.send { $0.queueStatusRequest() }
        let status = try #require(try host.frames().first?.queueStatus)
        #expect(status.framesRejected == 1)
    }

    @Test func hostSilencePastTheKeepAliveStopsTheActuatorAndClosesTheSession() async throws {
        var host = try await openSession(keepAliveMilliseconds: 50)
        let board = host.board
        // The last frame the host sends: a drive that would run for 500 ms.
        host.send { $0.rtp(at: 10_000, amplitude: 0x7F) }
        let lastFrameAt = board.time
        try board.advance(to: 200_000)

        // Silence is "more than 50 ms": the stop lands 50 ms + 1 µs after the last frame.
        let stopAt = lastFrameAt + 50_001
        let stopped = try #require(try host.frames().compactMap(\.stopped).first)
        #expect(stopped.reason == .hostSilent)
        #expect(UInt64(stopped.boardTime) == stopAt)
        let stopWrites = board.registerWrites.filter { $0.time > 10_000 }
        #expect(stopWrites.map { [$0.register, $0.value] } == [[0x02, 0x00], [0x0C, 0x00], [0x01, 0x40]])
        #expect(stopWrites.allSatisfy { $0.time == stopAt })
        #expect(board.chip.peek(.mode) == 0x40)  // standby
        #expect(board.chip.peek(.rtpInput) == 0)

        // Driven until the stop, then rung down.
        let driven = board.peakAcceleration(from: 40_000, to: stopAt)
        #expect(driven > 0.6)
        #expect(board.peakAcceleration(from: stopAt + 100_000, to: 200_000) < 0.01 * driven)

        // Commands stamped against the old session are refused until a new HELLO.
        host.send { $0.rtp(at: 250_000, amplitude: 0x7F) }
        #expect(try host.frames().first?.nak?.reason == .notOpen)
    }

    @Test func anAbsentChipIsReportedAndItsNACKLatchesAFaultStop() async throws {
        let board = SimulatedBoard(profile: try profile("pmd-c10-100"))
        board.chip.isPresent = false
        var host = Host(board: board)
        host.send { $0.hello() }
        #expect(try host.frames().first?.helloReply?.deviceID == 0xFF)
        host.send { $0.rtp(at: 5_000, amplitude: 0x7F) }
        try board.advance(to: 10_000)
        #expect(board.i2cLog.contains { $0.time == 5_000 && $0.kind == .write && !$0.acknowledged })
        let stopped = try #require(try host.frames().compactMap(\.stopped).first)
        #expect(stopped.reason == .fault)
        host.send { $0.rtp(at: 20_000, amplitude: 0x7F) }
        #expect(try host.frames().first?.nak?.reason == .fault)
    }

    @Test func aDriveLongerThanTheMaximumDriveTimeIsStoppedByTheBoard() async throws {
        let c10 = try profile("pmd-c10-100")
        let board = SimulatedBoard(profile: c10)
        var host = Host(board: board)
        host.send { $0.hello(keepAliveMilliseconds: 5_000, maxDriveMilliseconds: 100) }
        host.send { $0.rtp(at: 10_000, amplitude: 0x7F) }
        host.send { $0.rtp(at: 50_000, amplitude: 0x60) }  // a new amplitude does not restart the clock
        try board.advance(to: 300_000)
        let stopped = try #require(try host.frames().compactMap(\.stopped).first)
        #expect(stopped.reason == .maxDrive)
        #expect(stopped.boardTime == 110_001)  // "more than 100 ms" after the drive began
        #expect(board.registerWrites.last?.time == 110_001)
        #expect(board.chip.peek(.mode) == 0x40)
    }

    @Test func randomBytesFromTheHostNeverDriveTheActuator() throws {
        let board = SimulatedBoard(profile: try profile("pmd-c10-100"))
        var rng = SeededGenerator(seed: 0x5EED)
        for _ in 0..<2_000 {
            board.send((0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            try board.advance(by: 500)
        }
        // Garbage never opens a session (a HELLO needs a valid CRC), so nothing was queued
        // or run: the only writes are the start-up stop.
        #expect(board.registerWrites.allSatisfy { $0.time == 0 })
        #expect(board.peakAcceleration() == 0)
        #expect(board.receivedFrames().count > 0)  // it did answer, with NAKs
    }

    @Test func virtualTimeNeverRunsBackwards() throws {
        let board = SimulatedBoard()
        try board.advance(to: 5_000)
        #expect(throws: SimulatedBoardError.timeWentBackwards(now: 5_000, requested: 4_000)) {
            try board.advance(to: 4_000)
        }
        #expect(board.time == 5_000)
    }
}
