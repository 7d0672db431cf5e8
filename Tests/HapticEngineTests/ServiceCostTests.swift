import Haptics
import SimulatedBridgeDevice
import Testing

@testable import HapticEngine

/// The service loop's cost follows the work, and an immediate start
/// keeps the pattern's own timing on a link slower than its lead.
@Suite struct ServiceCostTests {
    @Test("an idle engine passes at the status interval, not every service period")
    func idlePassesFollowTheStatusInterval() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let before = await engine.scheduler.servicePasses
        try await engine.advance(bySeconds: 1)
        let passes = await engine.scheduler.servicePasses - before
        // QUEUE_STATUS every 10 ms (100) and 4 SYNC rounds of 4 exchanges a period apart;
        // a pass every 2 ms service period would be 500.
        #expect(passes <= 130, "passes: \(passes)")
        let s = await engine.statistics
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0)
    }

    @Test("a sparse pattern costs passes by its commands and the status interval, not by its length")
    func sparsePatternPassesFewerThanEveryPeriod() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let pattern = HapticPattern(events: (0..<8).map { .transient(at: Double($0) * 0.25, intensity: 1, sharpness: 1) })
        let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        let player = try await engine.makePlayer(with: pattern)
        let before = await engine.scheduler.servicePasses
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 2.2)
        let passes = await engine.scheduler.servicePasses - before
        #expect(passes <= 290, "passes: \(passes)")
        // Timing unchanged: the bursts land on their stamps, none late.
        let start = Int64((t * 1e6).rounded())
        let bursts = await rtpWrites(engine).filter { $0.amplitude == 127 }.map { $0.time - start }
        #expect(bursts == (0..<8).map { Int64($0) * 250_000 })
        let s = await engine.statistics
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0)
    }

    @Test("an immediate start keeping the pattern's timing on a link whose delivery exceeds the lead: 0 underruns")
    func immediateStartOnASlowJitteryLinkHasNoUnderruns() async throws {
        // 500 µs each way plus up to 4 ms per transfer: the lead (from the fastest
        // exchange) is shorter than a slow transfer's delivery.
        let engine = try makeEngine(link: .init(latencyMicroseconds: 500, jitterMicroseconds: 4_000), options: Self.keepingTiming)
        try await engine.start()
        let spread = await engine.withLink { $0.deliverySpreadMicroseconds }
        #expect(spread > 0, "the link must show its spread, or this test proves nothing")
        let player = try await engine.makePlayer(with: SchedulerTests.dense)
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 2.5)
        let s = await engine.statistics
        #expect(s.commandsSent > 500)
        #expect(s.boardUnderruns == 0)
        #expect(s.lateCommands == 0)
    }

    static var keepingTiming: HapticEngine.Options {
        var o = HapticEngine.Options(driving: .manual)
        o.immediateStart = .keepingPatternTiming
        return o
    }

    @Test("an immediate start is stamped now + lead by default, earlier than one keeping the pattern's timing, which waits out the link's spread")
    func soonestStartsEarlierByTheSpread() async throws {
        var firstWrite: [Int64] = []
        var spreads: [Int64] = []
        for options in [HapticEngine.Options(driving: .manual), Self.keepingTiming] {
            let engine = try makeEngine(link: .init(latencyMicroseconds: 500, jitterMicroseconds: 4_000), options: options)
            try await engine.start()
            let spread = await engine.withLink { $0.startAnchorMicroseconds }
            let player = try await engine.makePlayer(with: SchedulerTests.dense)
            let called = await onBoard(engine) { Int64($0.board.time) }
            try await player.start(atTime: 0)
            try await engine.advance(bySeconds: 0.1)
            let first = await rtpWrites(engine).first { $0.amplitude != 0 }
            firstWrite.append((first?.time ?? .max) - called)
            spreads.append(spread)
        }
        #expect(spreads[1] > 100, "the link must show a spread the board does not tolerate, or this test proves nothing")
        #expect(firstWrite[0] < firstWrite[1], "first writes \(firstWrite) µs after the call")
        #expect(firstWrite[1] >= spreads[1], "first writes \(firstWrite) µs after the call, spread \(spreads[1])")
    }
}
