import BridgeLink
import HapticCompilation
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice
import BridgeProtocol
import Testing

/// The engine sends a board no more than it takes in (`BoardIntake`, `DriveCompiler`
/// rule 4), whatever the pattern asks (100,000 transients at playback rate 4 would
/// send eight RTP writes a millisecond).
@Suite struct PacingTests {
    /// Transients every 0.5 ms of the timeline, four levels in turn: at playback rate 4,
    /// eight a millisecond of board time.
    static func denseTransients(count: Int) -> HapticPattern {
        let levels = [0.4, 0.7, 1.0, 0.55]
        return HapticPattern(events: (0..<count).map { .transient(at: Double($0) * 0.0005, intensity: levels[$0 % 4], sharpness: 0.5) })
    }

    /// The most of `times` (sorted) in any window [t, t + width).
    static func densest(_ times: [Int64], width: Int64) -> Int {
        var best = 0, start = 0
        for end in times.indices {
            while times[end] - times[start] >= width { start += 1 }
            best = max(best, end - start + 1)
        }
        return best
    }

    @Test("100,000 transients at playback rate 4 stream at most the board's intake a millisecond, none late, no underrun, to the end")
    func aHundredThousandTransientsAtRateFourArePacedToTheIntake() async throws {
        var options = HapticEngine.Options(driving: .manual)
        options.keepsSentCommandLog = true
        let engine = try makeEngine(options: options)
        let reasons = Recorder<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        let finished = Recorder<Bool>()
        try await engine.start()
        let setup = await engine.sentCommands.count
        let player = try await engine.makeAdvancedPlayer(with: Self.denseTransients(count: 100_000))
        try await player.setCompletionHandler { finished.append($0 == nil) }
        try await player.setPlaybackRate(4)
        try await player.start(atTime: 0)
        // 50 s of timeline at rate 4: 12.5 s of board time.
        try await engine.advance(bySeconds: 12.6)
        await engine.callbacksDelivered()
        #expect(reasons.values.isEmpty)
        #expect(finished.values == [true])
        let s = await engine.statistics
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0 && s.rejectedFrames == 0, "\(s)")
        let stamps = await engine.sentCommands.dropFirst(setup).map(\.time)
        // 12.5 s of board time at one write a slot: nearly every slot used.
        let slots = 12_500_000 / Int(BoardIntake.writeSpacingMicroseconds)
        #expect(stamps.count > slots * 9 / 10, "\(stamps.count) of \(slots) slots")
        let intake = Int(BoardIntake.writesPerMillisecond(spacing: BoardIntake.writeSpacingMicroseconds).rounded(.up))
        #expect(Self.densest(stamps, width: 1000) <= intake)
        // Eight asked a millisecond, the intake sent: the rest merged into their slots, counted.
        #expect(s.writeSpacingMicroseconds == BoardIntake.writeSpacingMicroseconds)
        #expect(s.mergedWrites > 40_000 && s.delayedWrites > slots / 2, "\(s)")
        #expect(s.boardLagHighWater < 100)
    }
}

/// "Never send a board more than its intake takes (from its capabilities)": the
/// engine paces by what the board's HELLO_REPLY states.
@Suite struct StatedIntakeTests {
    static func engine(stating spacing: UInt16, options: HapticEngine.Options = .init(driving: .manual)) throws -> HapticEngine {
        let p = try profile("pmd-c10-100")
        var configuration = SimulatedBoard.Configuration(profile: p)
        configuration.writeSpacingMicroseconds = spacing
        return HapticEngine(link: BridgeLink(transport: SimulatedBridgeDevice(board: SimulatedBoard(configuration: configuration), link: .init())), actuator: p, options: options)
    }

    @Test("the engine paces a board by the intake its HELLO_REPLY states, and an unstating board by protocol.h's figure", arguments: [500, 1000, 0])
    func pacesByTheStatedIntake(spacing: UInt16) async throws {
        var options = HapticEngine.Options(driving: .manual)
        options.keepsSentCommandLog = true
        let engine = try Self.engine(stating: spacing, options: options)
        try await engine.start()
        let expected = spacing == 0 ? Int64(BoardFrame.HelloReply.unstatedWriteSpacingMicroseconds) : Int64(spacing)
        let s0 = await engine.statistics
        #expect(s0.writeSpacingMicroseconds == expected && s0.boardWriteSpacingMicroseconds == expected)
        let setup = await engine.sentCommands.count
        let player = try await engine.makeAdvancedPlayer(with: PacingTests.denseTransients(count: 2_000))
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 1.2)
        let stamps = await engine.sentCommands.dropFirst(setup).map(\.time)
        #expect(stamps.count > 100)
        // Rule 4: a stamp carrying k writes holds the next stamp k × the spacing later.
        var writesAt: [(time: Int64, count: Int)] = []
        for t in stamps {
            if writesAt.last?.time == t { writesAt[writesAt.count - 1].count += 1 } else { writesAt.append((t, 1)) }
        }
        let tooClose = zip(writesAt, writesAt.dropFirst()).filter { $1.time - $0.time < Int64($0.count) * expected }
        #expect(tooClose.isEmpty, "stamps closer than the stated intake: \(tooClose.prefix(3))")
        let s = await engine.statistics
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0)
    }

    @Test("a client's own pacing overrides what the board states (0: none)")
    func clientPacingOverrides() async throws {
        var options = HapticEngine.Options(driving: .manual)
        options.writeSpacingMicroseconds = 0
        let engine = try Self.engine(stating: 500, options: options)
        try await engine.start()
        let s = await engine.statistics
        #expect(s.writeSpacingMicroseconds == 0 && s.boardWriteSpacingMicroseconds == 500)
    }
}

@Suite struct BoardOverloadTextTests {
    @Test("an overload says the board fell behind, how late, and the pacing it was sent at; no spacing never traps")
    func theOverloadNamesItsFigures() {
        let paced = BoardOverload(lagMicroseconds: 56_000, underruns: 750, writeSpacingMicroseconds: 250, boardWriteSpacingMicroseconds: 250)
        #expect("\(StoppedReason.boardFellBehind(paced))" == "the board fell behind what it was sent: it ran commands 56 ms after their stamps; "
            + "750 commands started late; the engine sent at most 4 writes a millisecond, the board's intake is 4 a millisecond (HELLO_REPLY)")
        let unpaced = BoardOverload(lagMicroseconds: nil, underruns: 0, writeSpacingMicroseconds: 0, silenceReportedAfterSendMicroseconds: 1_500)
        let text = "\(unpaced)"
        #expect(text.contains("stopped for host silence though the host had sent a frame 1.5 ms before"))
        #expect(text.contains("without pacing") && !text.contains("no frame from the host"))
    }
}
