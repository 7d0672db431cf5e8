import Foundation
import Hapbridge
import HapticCompilation
import Testing

/// `PlaySession` through `import Hapbridge` alone, on the simulated board in virtual time.
struct PlaySessionTests {
    static let pattern = HapticPattern(events: [
        .transient(at: 0, intensity: 1, sharpness: 0.9),
        .continuous(at: 0.05, duration: 0.3, intensity: 0.8, sharpness: 0.4),
    ])

    @Test("A session plays a built pattern on sim to its end: progress reaches the end, 0 late, no stop reason, a record of every command played")
    func playsToTheEnd() async throws {
        let session = try PlaySession(address: .simulated, actuator: try profile(), options: testOptions())
        #expect(session.address == .simulated && !session.isRealTime)
        try await session.start(Self.pattern)
        var fractions: [Double] = []
        let result = try await session.run { fractions.append($0.fraction) }
        #expect(fractions.last == 1 && fractions == fractions.sorted())
        #expect(result.completed && !result.endedEarly && result.stopReason == nil)
        #expect(result.statistics.commandsSent > 0 && result.statistics.lateCommands == 0 && result.statistics.boardUnderruns == 0)
        #expect(result.flushedCommands == 0 && result.playedCommands.count == result.statistics.commandsSent)
        #expect(result.trace.peakG > 0 && result.trace.source != nil && !result.trace.drive.isEmpty)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(result.recordJSON.utf8)) as? [String: Any])
        #expect(record["schema"] as? String == "hapbridge-play-record/1" && record["device"] as? String == "sim")
        #expect((record["commands"] as? [Any])?.count == result.playedCommands.count && record["stopReason"] is NSNull)
    }

    @Test("stop(reason:) mid-pattern ends the play: the result gives the reason, the drive ends at 0, and nothing after the stop is listed as played")
    func stopEndsThePlay() async throws {
        let long = HapticPattern(events: [.continuous(at: 0, duration: 2, intensity: 1, sharpness: 0.5)])
        let session = try PlaySession(address: .simulated, actuator: try profile(), options: testOptions())
        try await session.start(long)
        var steps = 0
        while true {
            let p = try await session.step()
            steps += 1
            if steps == 4 { session.stop(reason: "stopped by the test") }
            if p.isFinished { break }
            #expect(steps < 100, "the play did not finish after stop")
            if steps >= 100 { break }
        }
        #expect(steps < 10)
        let result = try await session.finish()
        #expect(result.stopReason == "stopped by the test" && result.interruption == "stopped by the test")
        #expect(result.position < result.duration)
        #expect(result.trace.drive.last?.amplitude == 0)
        if let last = result.trace.drive.last {
            #expect(result.playedCommands.allSatisfy { $0.time <= Int64(last.time) })
        }
    }

    @Test("A pattern the engine cannot play is a PlayError naming it, not a trap")
    func unplayablePatternIsAnError() async throws {
        var options = testOptions()
        options.playbackRate = 0  // no playback rate of 0: the player refuses it
        let session = try PlaySession(address: .simulated, actuator: try profile(), options: options)
        await #expect(throws: PlayError.self) { try await session.start(Self.pattern) }
        await session.engine.close()
    }
}
