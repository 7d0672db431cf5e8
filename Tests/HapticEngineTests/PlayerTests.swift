import DRV2605
import HapticCompilation
import HapticEngine
import Haptics
import Testing

/// Each player operation against Core Haptics' documented behaviour, checked on the
/// chip's RTP_INPUT writes. LRA (C10-100) on a DRV2605L: intensity 1 → 85,
/// intensity 0.5 → 21, transients at full intensity → ±127 (see CompilationRuleTests).
@Suite struct PlayerTests {
    /// A started engine and a start time 50 ms ahead, in whole µs.
    func setUp() async throws -> (HapticEngine, Double, Int64) {
        let engine = try makeEngine()
        try await engine.start()
        let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        return (engine, t, Int64((t * 1e6).rounded()))
    }

    func amplitude(_ writes: [(time: Int64, amplitude: Int8)], at t: Int64) -> Int8? {
        writes.last { $0.time <= t }?.amplitude
    }

    @Test func theStampedWritesLandWhereTheCompiledProgramSays() async throws {
        let pattern = HapticPattern(
            events: [
                .continuous(at: 0, duration: 0.3, intensity: 1, sharpness: 0.2),
                .transient(at: 0.15, intensity: 0.8, sharpness: 1),
            ],
            curves: [
                ParameterCurve(id: .hapticIntensityControl, time: 0, controlPoints: [.init(time: 0, value: 1), .init(time: 0.3, value: 0.2)]),
                ParameterCurve(id: .hapticSharpnessControl, time: 0, controlPoints: [.init(time: 0, value: 0), .init(time: 0.3, value: 0.8)]),
            ])
        let (engine, t, start) = try await setUp()
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.5)
        let target = try DriveTarget(profile: try profile(), variant: .drv2605L)
        let program = DeviceProgram.compile(try Renderer.render(pattern), for: target)
        let expected = program.commands.map { TimedCommand(time: $0.time + start, command: $0.command) }
        let actual = await onBoard(engine) { d in
            d.board.registerWrites.filter { ($0.register == 0x02 || $0.register == 0x20) && Int64($0.boardTime) >= start }.map {
                TimedCommand(time: Int64($0.boardTime), command: $0.register == 0x02 ? .rtp(Int8(bitPattern: $0.value)) : .register(0x20, $0.value))
            }
        }
        #expect(expected.count > 50)
        #expect(actual == expected)
        #expect(await engine.statistics.boardUnderruns == 0)
    }

    @Test func stopAtATimeEndsTheDriveThere() async throws {
        let (engine, t, start) = try await setUp()
        let player = try await engine.makePlayer(with: .buzz(1.0))
        try await player.start(atTime: t)
        try await player.stop(atTime: t + 0.3)
        try await engine.advance(bySeconds: 0.6)
        let writes = await rtpWrites(engine)
        #expect(amplitude(writes, at: start) == 85)
        #expect(amplitude(writes, at: start + 299_999) == 85)
        #expect(amplitude(writes, at: start + 300_000) == 0)
    }

    @Test func sendParametersScalesIntensityFromItsTime() async throws {
        let (engine, t, start) = try await setUp()
        let player = try await engine.makePlayer(with: .buzz(0.5))
        try await player.start(atTime: t)
        try await player.sendParameters([DynamicParameter(id: .hapticIntensityControl, value: 0.5, time: 0)], atTime: t + 0.1)
        try await engine.advance(bySeconds: 0.3)
        let writes = await rtpWrites(engine)
        #expect(amplitude(writes, at: start + 99_999) == 85)
        #expect(amplitude(writes, at: start + 100_000) == 21)
    }

    @Test func aParameterCurveRampsFromItsStartTime() async throws {
        let (engine, t, start) = try await setUp()
        let player = try await engine.makePlayer(with: .buzz(0.5))
        try await player.start(atTime: t)
        // Intensity control 1 → 0 over 100 ms from 100 ms: at 150 ms it is 0.5 → 21.
        let curve = ParameterCurve(id: .hapticIntensityControl, time: 0, controlPoints: [.init(time: 0, value: 1), .init(time: 0.1, value: 0)])
        try await player.scheduleParameterCurve(curve, atTime: t + 0.1)
        try await engine.advance(bySeconds: 0.3)
        let writes = await rtpWrites(engine)
        #expect(amplitude(writes, at: start + 150_000) == 21)
        #expect(amplitude(writes, at: start + 200_000) == 0)
    }

    @Test func cancelDropsAScheduledStart() async throws {
        let (engine, t, _) = try await setUp()
        let player = try await engine.makePlayer(with: .buzz(0.2))
        try await player.start(atTime: t + 0.1)
        try await player.cancel()
        try await engine.advance(bySeconds: 0.5)
        #expect(await rtpWrites(engine).allSatisfy { $0.amplitude == 0 })
    }

    @Test func aMutedPlayerKeepsItsPlaceAndPlaysNothing() async throws {
        let (engine, t, start) = try await setUp()
        let player = try await engine.makePlayer(with: .buzz(1.0))
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.2)
        try await player.setMuted(true)
        let mutedAt = Int64((await engine.currentTime) * 1e6)
        try await engine.advance(bySeconds: 0.2)
        let writes = await rtpWrites(engine)
        #expect(amplitude(writes, at: start + 10_000) == 85)
        // Within one look-ahead window (20 ms) plus a control step.
        #expect(amplitude(writes, at: mutedAt + 21_000 + 1_000) == 0)
    }

    @Test func pauseHoldsThePositionAndResumeContinuesFromIt() async throws {
        let pattern = HapticPattern(events: [.transient(at: 0.15, intensity: 1, sharpness: 1), .continuous(at: 0, duration: 0.2, intensity: 0.5, sharpness: 0.5)])
        let (engine, t, start) = try await setUp()
        let player = try await engine.makeAdvancedPlayer(with: pattern)
        try await player.start(atTime: t)
        try await player.pause(atTime: t + 0.1)
        try await player.resume(atTime: t + 0.3)
        try await engine.advance(bySeconds: 0.6)
        let writes = await rtpWrites(engine)
        #expect(amplitude(writes, at: start + 50_000) == 21)
        #expect(amplitude(writes, at: start + 200_000) == 0)  // paused
        // 50 ms of pattern left before the transient at 150 ms: it plays at 300 + 50.
        #expect(writes.contains { $0.time == start + 350_000 && $0.amplitude == 127 })
        #expect(!writes.contains { $0.time == start + 150_000 && $0.amplitude == 127 })
    }

    @Test func seekWhileIdleMovesWhereStartBegins() async throws {
        let pattern = HapticPattern(events: [.transient(at: 0.15, intensity: 1, sharpness: 1), .continuous(at: 0, duration: 0.2, intensity: 0.5, sharpness: 0.5)])
        let (engine, t, start) = try await setUp()
        let player = try await engine.makeAdvancedPlayer(with: pattern)
        try await player.seek(toOffset: 0.15)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.3)
        let writes = await rtpWrites(engine)
        #expect(writes.contains { $0.time == start && $0.amplitude == 127 })
        // 50 ms of pattern were left.
        #expect(amplitude(writes, at: start + 60_000) == 0)
    }

    @Test func loopingRepeatsUpToTheLoopEnd() async throws {
        let pattern = HapticPattern(events: [.transient(at: 0, intensity: 1, sharpness: 1), .continuous(at: 0, duration: 0.1, intensity: 0.5, sharpness: 0.5)])
        let (engine, t, start) = try await setUp()
        let player = try await engine.makeAdvancedPlayer(with: pattern)
        try await player.setLoop(enabled: true, loopEnd: 0.05)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.25)
        let bursts = await rtpWrites(engine).filter { $0.amplitude == 127 }.map { $0.time - start }
        #expect(Array(bursts.prefix(4)) == [0, 50_000, 100_000, 150_000])
    }

    @Test func playbackRateScalesTimeAndTheCompletionHandlerRunsAtTheEnd() async throws {
        let (engine, t, start) = try await setUp()
        let player = try await engine.makeAdvancedPlayer(with: .buzz(0.2))
        let completions = Recorder<HapticEngineError?>()
        try await player.setCompletionHandler { completions.append($0) }
        try await player.setPlaybackRate(2)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.3)
        await engine.callbacksDelivered()
        let writes = await rtpWrites(engine)
        #expect(amplitude(writes, at: start + 99_999) == 85)
        #expect(amplitude(writes, at: start + 100_000) == 0)
        #expect(completions.values.count == 1 && completions.values[0] == nil)
        await #expect(throws: HapticEngineError.invalidPlaybackRate(0)) { try await player.setPlaybackRate(0) }
    }

    @Test func twoPlayersMixByAddingIntensityClippedAtOne() async throws {
        let (engine, t, start) = try await setUp()
        let a = try await engine.makePlayer(with: .buzz(0.3, intensity: 0.6))
        let b = try await engine.makePlayer(with: .buzz(0.1, intensity: 0.6))
        try await a.start(atTime: t)
        try await b.start(atTime: t)
        try await engine.advance(bySeconds: 0.4)
        let writes = await rtpWrites(engine)
        // 0.6 + 0.6 → 1 → 85; A alone: 127 × 0.66551 × 0.36 = 30.4 → 30.
        #expect(amplitude(writes, at: start + 50_000) == 85)
        #expect(amplitude(writes, at: start + 150_000) == 30)
        #expect(amplitude(writes, at: start + 300_000) == 0)
    }

    @Test func pastAndInvalidTimesFollowCoreHaptics() async throws {
        let (engine, _, _) = try await setUp()
        let player = try await engine.makePlayer(with: .buzz(0.1))
        await #expect(throws: HapticEngineError.invalidTime(-1)) { try await player.start(atTime: -1) }
        // A time already past plays as soon as possible.
        try await player.start(atTime: 0.000001)
        try await engine.advance(bySeconds: 0.05)
        #expect(await rtpWrites(engine).last?.amplitude == 85)
    }
}

extension PlayerTests {
    @Test func seekWhilePlayingJumpsWithinOneLookAheadWindow() async throws {
        let pattern = HapticPattern(events: [.transient(at: 0.3, intensity: 1, sharpness: 1), .continuous(at: 0, duration: 0.4, intensity: 0.5, sharpness: 0.5)])
        let (engine, t, _) = try await setUp()
        let player = try await engine.makeAdvancedPlayer(with: pattern)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.1)
        let asked = await onBoard(engine) { Int64($0.board.boardTime) }
        try await player.seek(toOffset: 0.25)
        try await engine.advance(bySeconds: 0.2)
        let burst = try #require(await rtpWrites(engine).first { $0.amplitude == 127 })
        // 50 ms of pattern to the transient, from where the seek took effect: the first
        // step not yet compiled, at most one window (20 ms) + a step after the call.
        #expect(burst.time - asked >= 50_000 && burst.time - asked <= 50_000 + 21_000)
    }
}

extension PlayerTests {
    @Test func aReleasedPlayerPlaysOutAndIsThenForgotten() async throws {
        let (engine, t, start) = try await setUp()
        var player: HapticPatternPlayer? = try await engine.makePlayer(with: .buzz(0.1))
        try await player!.start(atTime: t)
        player = nil
        // The release is a Task from the handle's deinit onto the engine: yield so it
        // gets to run, while virtual time moves on in 1 ms steps (2 s at most).
        for _ in 0..<2000 where await engine.playerCount > 0 {
            await Task.yield()
            try await engine.advance(bySeconds: 0.001)
        }
        let writes = await rtpWrites(engine)
        // It still played whole.
        #expect(amplitude(writes, at: start + 50_000) == 85)
        #expect(amplitude(writes, at: start + 100_000) == 0)
        #expect(await engine.playerCount == 0)
    }
}

extension PlayerTests {
    @Test func nonsenseFromTheCallerIsATypedErrorNeverATrap() async throws {
        let (engine, _, _) = try await setUp()
        let player = try await engine.makeAdvancedPlayer(with: .buzz(0.1))
        await #expect(throws: HapticEngineError.invalidTime(1e300)) { try await player.start(atTime: 1e300) }
        await #expect(throws: HapticEngineError.invalidTime(.infinity)) { try await player.seek(toOffset: .infinity) }
        await #expect(throws: HapticEngineError.self) {
            try await player.sendParameters([DynamicParameter(id: .hapticIntensityControl, value: .nan, time: 0)])
        }
        await #expect(throws: HapticEngineError.self) {
            try await player.scheduleParameterCurve(ParameterCurve(id: .hapticSharpnessControl, time: 0, controlPoints: [.init(time: -1, value: 0)]))
        }
        await #expect(throws: HapticEngineError.self) { try await player.setPlaybackRate(.nan) }  // NaN never equals itself
        await #expect(throws: HapticEngineError.invalidTime(-2)) { try await player.setLoop(enabled: true, loopEnd: -2) }
        await #expect(throws: HapticEngineError.self) { try await engine.advance(bySeconds: .nan) }
    }
}
