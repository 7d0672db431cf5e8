import HapticCompilation
import HapticEngine
import Haptics
import SimulatedBridgeDevice
import Testing

/// The engine sends a board no more than it takes in (`BoardIntake`, `DriveCompiler`
/// rule 4), whatever the pattern asks (issue 17: 100,000 transients at playback rate
/// 4 sent eight RTP writes a millisecond).
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
        #expect(stamps.count > 45_000)
        let intake = Int(BoardIntake.writesPerMillisecond(spacing: BoardIntake.writeSpacingMicroseconds))
        #expect(Self.densest(stamps, width: 1000) <= intake)
        // Eight asked a millisecond, four sent: the rest merged into their slots, counted.
        #expect(s.writeSpacingMicroseconds == BoardIntake.writeSpacingMicroseconds)
        #expect(s.mergedWrites > 40_000 && s.delayedWrites > 40_000, "\(s)")
        #expect(s.boardLagHighWater < 100)
    }
}

@Suite struct BoardOverloadTextTests {
    @Test("an overload says the board fell behind, how late, and the pacing it was sent at; no spacing never traps")
    func theOverloadNamesItsFigures() {
        let paced = BoardOverload(lagMicroseconds: 56_000, underruns: 750, writeSpacingMicroseconds: 250)
        #expect("\(StoppedReason.boardFellBehind(paced))" == "the board fell behind what it was sent: it ran commands 56 ms after their stamps; "
            + "750 commands started late; the engine sent at most 4 writes a millisecond, a board is expected to take 4 a millisecond (BoardIntake)")
        let unpaced = BoardOverload(lagMicroseconds: nil, underruns: 0, writeSpacingMicroseconds: 0, silenceReportedAfterSendMicroseconds: 1_500)
        let text = "\(unpaced)"
        #expect(text.contains("stopped for host silence though the host had sent a frame 1.5 ms before"))
        #expect(text.contains("without pacing") && !text.contains("no frame from the host"))
    }
}
