import HapticEngine
import Haptics
import Testing

/// Protocol 1.1 boards take back what they have queued (REPLACE_FROM): the engine
/// streams far ahead and still lands every change at now + lead (see Rewind.swift).
@Suite struct DeepStreamingTests {
    /// Two players at 0.5 (mixed: 85); B stops 200 ms in. Returns the engine, the
    /// board time of the call and the RTP writes after it.
    func stopOneOfTwo(options: HapticEngine.Options = .init(driving: .manual)) async throws
        -> (HapticEngine, Int64, [(time: Int64, amplitude: Int8)])
    {
        let engine = try makeEngine(options: options)
        try await engine.start()
        let a = try await engine.makePlayer(with: .buzz(1, intensity: 0.5))
        let b = try await engine.makePlayer(with: .buzz(1, intensity: 0.5))
        try await a.start()
        try await b.start()
        try await engine.advance(bySeconds: 0.2)
        let asked = await onBoard(engine) { Int64($0.board.boardTime) }
        try await b.stop()
        try await engine.advance(bySeconds: 0.1)
        return (engine, asked, await rtpWrites(engine))
    }

    @Test("streaming 250 ms ahead, a change still lands at now + lead: the one-way delay, the clock error and a 50 µs margin")
    func aChangeLandsAtNowPlusLead() async throws {
        let (engine, asked, writes) = try await stopOneOfTwo()
        let change = try #require(writes.first { $0.time > asked && $0.amplitude == 21 })
        // Link 500 µs one way; clock error after sync ±500 µs; margin 50 µs.
        #expect(change.time - asked <= 500 + 500 + 50 + 100)
        let s = await engine.statistics
        #expect(s.replacements == 1)
        #expect(s.rejectedFrames == 0 && s.boardUnderruns == 0 && s.lateCommands == 0)
    }

    @Test("before the change the chip sees exactly what it would have without it: nothing runs twice, nothing is lost")
    func nothingBeforeTheChangeIsReplayed() async throws {
        let (_, asked, withStop) = try await stopOneOfTwo()
        let change = try #require(withStop.first { $0.time > asked && $0.amplitude == 21 })
        // The same run without the stop.
        let engine = try makeEngine()
        try await engine.start()
        let a = try await engine.makePlayer(with: .buzz(1, intensity: 0.5))
        let b = try await engine.makePlayer(with: .buzz(1, intensity: 0.5))
        try await a.start()
        try await b.start()
        try await engine.advance(bySeconds: 0.3)
        let without = await rtpWrites(engine)
        let before = { (w: [(time: Int64, amplitude: Int8)]) in w.filter { $0.time < change.time }.map { "\($0.time):\($0.amplitude)" } }
        #expect(before(withStop) == before(without))
        #expect(Set(withStop.map(\.time)).count == withStop.count, "no RTP write happens twice at one time")
    }

    @Test("a 1.0 board cannot take commands back: the look-ahead stays at 20 ms and a change lands within that window")
    func aProtocol10BoardKeepsTheShortWindow() async throws {
        var options = HapticEngine.Options(driving: .manual)
        options.protocolMinor = 0
        let (engine, asked, writes) = try await stopOneOfTwo(options: options)
        let change = try #require(writes.first { $0.time > asked && $0.amplitude == 21 })
        #expect(change.time - asked <= 20_000 + 2_000 + 1_000)
        let s = await engine.statistics
        #expect(s.replacements == 0 && s.queueHighWater <= 30)
    }

    @Test("pause, seek, rate and parameters made while 250 ms are queued each land at their time, in call order")
    func operationsAfterARewindKeepTheirOrder() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let player = try await engine.makeAdvancedPlayer(with: .buzz(2, intensity: 1))
        try await player.start()
        try await engine.advance(bySeconds: 0.1)
        // A parameter at +50 ms, then (later call, earlier time) a pause now: the pause
        // must not lose the parameter, and the parameter applies when playing resumes.
        try await player.sendParameters([DynamicParameter(id: .hapticIntensityControl, value: 0.5, time: 0.05)], atTime: 0)
        let pausedAt = await onBoard(engine) { Int64($0.board.boardTime) }
        try await player.pause(atTime: 0)
        try await engine.advance(bySeconds: 0.1)
        try await player.resume(atTime: 0)
        try await engine.advance(bySeconds: 0.1)
        let writes = await rtpWrites(engine)
        let zero = try #require(writes.first { $0.time > pausedAt && $0.amplitude == 0 })
        #expect(zero.time - pausedAt <= 1_200)
        // After resuming: the 0.5 control in force (1 × 0.5 → intensity 0.5 → 21).
        #expect(writes.last?.amplitude == 21)
    }
}
