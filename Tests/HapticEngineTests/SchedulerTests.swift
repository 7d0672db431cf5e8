import DRV2605
import HapticCompilation
import HapticEngine
import Haptics
import SimulatedBridgeDevice
import Testing

/// The look-ahead scheduler and the clock sync on the simulated board's link.
@Suite struct SchedulerTests {
    /// 2 s of a dense pattern: intensity jumping every 10 ms and a transient every 20 ms.
    static let dense: HapticPattern = {
        var events: [HapticEvent] = [.continuous(at: 0, duration: 2, intensity: 1, sharpness: 0.5)]
        for k in 0..<100 { events.append(.transient(at: Double(k) * 0.02 + 0.005, intensity: 0.9, sharpness: Double(k % 5) / 4)) }
        let points = (0...200).map { ParameterCurve.ControlPoint(time: Double($0) * 0.01, value: $0 % 2 == 0 ? 1 : 0.3) }
        // Curves of more than 16 points load with a warning only; the engine plays them whole.
        return HapticPattern(events: events, curves: [ParameterCurve(id: .hapticIntensityControl, time: 0, controlPoints: points)])
    }()

    @Test func aDenseStreamKeepsTheBoardQueueFedWithoutUnderrunOrOverflow() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let player = try await engine.makePlayer(with: Self.dense)
        try await player.start()
        try await engine.advance(bySeconds: 2.2)
        let s = await engine.statistics
        #expect(s.commandsSent > 400)
        #expect(s.boardUnderruns == 0)
        #expect(s.rejectedFrames == 0)
        #expect(s.lateCommands == 0)
        // A 1.1 board: the stream runs as deep as its queue allows, never past it
        // (two slots stay free for what the host cannot account for).
        #expect(s.queueHighWater > 30 && s.queueHighWater <= 96 - 2)
    }

    @Test func clockSyncEstimatesOffsetAndDriftAndStampsStillLandOnTarget() async throws {
        // The host clock runs 200 ppm fast and 7 s ahead of the board's.
        let link = SimulatedBridgeDevice.Link(latencyMicroseconds: 700, hostOffsetMicroseconds: 7_000_000, hostDriftPPM: 200)
        let engine = try makeEngine(link: link)
        try await engine.start()
        let pattern = HapticPattern(events: (0..<12).map { .transient(at: Double($0) * 0.25, intensity: 1, sharpness: 1) })
        let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 3.2)
        let clock = try #require(await engine.statistics.clock)
        // board = host / (1 + 200e-6): d(board)/d(host) − 1 = −199.96e-6.
        #expect(abs(clock.drift + 200e-6) < 5e-6)
        // Symmetric 700 µs each way: the bound is half the 1.4 ms round trip (+ fit residual).
        #expect(clock.errorMicroseconds >= 700 && clock.errorMicroseconds < 760, "\(clock)")
        let start = Int64((t * 1e6).rounded())
        let bursts = await rtpWrites(engine).filter { $0.amplitude == 127 }.map { $0.time - start }
        #expect(bursts == (0..<12).map { Int64($0) * 250_000 })
        // currentTime agrees with the board's own clock to within the reported error.
        let board = await onBoard(engine) { Double($0.board.boardTime) }
        #expect(abs(await engine.currentTime * 1e6 - board) <= clock.errorMicroseconds)
    }

    @Test func aStopWhileAnotherPlayerSoundsLandsWithinOneLookAheadWindow() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let a = try await engine.makePlayer(with: .buzz(1, intensity: 0.5))
        let b = try await engine.makePlayer(with: .buzz(1, intensity: 0.5))
        try await a.start()
        try await b.start()
        try await engine.advance(bySeconds: 0.2)
        let asked = Int64(await engine.currentTime * 1e6)
        try await b.stop()
        try await engine.advance(bySeconds: 0.1)
        let writes = await rtpWrites(engine)
        // 0.5 + 0.5 → 85 before; A alone → 21 after, no later than one window (20 ms)
        // plus the lead and one control step.
        let change = try #require(writes.first { $0.time > asked && $0.amplitude == 21 })
        #expect(change.time - asked <= 20_000 + 2_000 + 1_000)
    }

    @Test func anImmediateStopOfTheOnlyPlayerFlushesTheBoardAtOnce() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(1))
        try await player.start()
        try await engine.advance(bySeconds: 0.2)
        let asked = Int64(await engine.currentTime * 1e6)
        try await player.stop()
        try await engine.advance(bySeconds: 0.05)
        let zero = try #require(await rtpWrites(engine).first { $0.time > asked && $0.amplitude == 0 })
        // STOP_ALL runs on arrival: the link's one-way delay (500 µs).
        #expect(zero.time - asked <= 600)
    }

    @Test func afterPrepareTheFirstEventIsOnTime() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(0.05))
        let asked = await onBoard(engine) { Int64($0.board.boardTime) }
        try await player.start()
        try await engine.advance(bySeconds: 0.1)
        let first = try #require(await rtpWrites(engine).first { $0.amplitude != 0 })
        // Stamped at now + lead (one-way 500 µs + clock error + 50 µs margin) and run on the stamp.
        #expect(first.time - asked <= 1_500)
        let s = await engine.statistics
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0)
        // The chip was already in RTP mode: the first event wrote only RTP_INPUT.
        let modeWrites = await onBoard(engine) { d in d.board.registerWrites.filter { $0.register == 0x01 && Int64($0.boardTime) > asked }.count }
        #expect(modeWrites == 0)
    }

    @Test func startReturnsOnlyOnceTheBoardHasRunTheWholeSetupEvenWhenItArrivedLate() async throws {
        // Up to 4 ms of jitter on top of 500 µs: some setup frames reach the board
        // after their stamp and run on arrival.
        let engine = try makeEngine(link: .init(latencyMicroseconds: 500, jitterMicroseconds: 4_000))
        try await engine.start()
        let returned = await onBoard(engine) { Int64($0.board.boardTime) }
        let (setup, last) = await onBoard(engine) { d in
            (d.board.registerWrites.filter { $0.register != 0x02 }.count, d.board.registerWrites.map { Int64($0.boardTime) }.max() ?? .max)
        }
        let expected = try DriveTarget(profile: profile(), variant: .drv2605L).setupWrites.count
        #expect(setup >= expected)
        #expect(last <= returned)
    }

    @Test func aLinkSlowerThanTheLookAheadShowsUpAsLateCommandsAndBoardUnderruns() async throws {
        var options = HapticEngine.Options(driving: .manual, lookAheadMicroseconds: 5_000, startTimeoutMicroseconds: 2_000_000)
        options.deepLookAheadMicroseconds = 5_000  // as short on a 1.1 board too
        let engine = try makeEngine(link: .init(latencyMicroseconds: 30_000), options: options)
        try await engine.start()
        let player = try await engine.makePlayer(with: Self.dense)
        try await player.start()
        try await engine.advance(bySeconds: 0.5)
        let s = await engine.statistics
        #expect(s.lateCommands > 0)
        #expect(s.boardUnderruns > 0)
    }

    @Test func anERMGetsAnOverdrivePulseBeforeItsRatedLevel() async throws {
        let engine = try makeEngine(profile: "pmd-307-103")
        try await engine.start()
        let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        let start = Int64((t * 1e6).rounded())
        let player = try await engine.makePlayer(with: .buzz(0.2, intensity: 1, sharpness: 1))
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.3)
        let writes = await rtpWrites(engine).filter { $0.time >= start }
        // 307-103 (see CompilationRuleTests): +127 for 28390 µs, then 103; the fall at
        // 200 ms brakes at −127 for the same length, then 0.
        #expect(Array(writes.prefix(4).map { [$0.time - start, Int64($0.amplitude)] }) == [[0, 127], [28_390, 103], [200_000, -127], [228_390, 0]])
    }
}

extension SchedulerTests {
    @Test func theReportedClockErrorBoundsTheTrueErrorOnAnAsymmetricJitteryLink() async throws {
        // 300 µs out, 900 µs back, up to 400 µs of jitter each way: the midpoint rule
        // is off by about (900 − 300) / 2 = 300 µs, which only the bound can admit.
        let link = SimulatedBridgeDevice.Link(latencyMicroseconds: 300, returnLatencyMicroseconds: 900, jitterMicroseconds: 400)
        let engine = try makeEngine(link: link)
        try await engine.start()
        let pattern = HapticPattern(events: (0..<8).map { .transient(at: Double($0) * 0.25, intensity: 1, sharpness: 1) })
        let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 2.2)
        let clock = try #require(await engine.statistics.clock)
        let board = await onBoard(engine) { Double($0.board.boardTime) }
        let trueError = abs(await engine.currentTime * 1e6 - board)
        #expect(trueError >= 100, "the asymmetry must show, or this test proves nothing")
        #expect(trueError <= clock.errorMicroseconds)
        // Stamps are board time: the bursts still land exactly, none late.
        let start = Int64((t * 1e6).rounded())
        let bursts = await rtpWrites(engine).filter { $0.amplitude == 127 }.map { $0.time - start }
        #expect(bursts == (0..<8).map { Int64($0) * 250_000 })
        let s = await engine.statistics
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0)
    }
}
