import HapticCompilation
import Haptics
import Testing

@testable import HapticEngine

/// The engine's state as values (`PlayerTable`, `RewindLog`), worked by hand.
@Suite("Engine state")
struct EngineStateTests {
    func timeline(_ seconds: Double = 0.1) throws -> Timeline {
        try Renderer.render(.buzz(seconds), options: RenderOptions(sampleRate: 1000))
    }

    @Test("a player made before a reset is invalid after it; ids are never reused")
    func sessionsEndWithAReset() throws {
        var table = PlayerTable()
        let a = table.register(advanced: false, timeline: try timeline())
        #expect(table.playback(a) != nil)
        table.newSession()
        #expect(table.playback(a) == nil && table.count == 0)
        let b = table.register(advanced: true, timeline: try timeline())
        #expect(b != a && table.playback(b)?.advanced == true)
    }

    @Test("completions are handed over once the board reaches a player's end, in the order players ended")
    func dueCompletionsInOrder() throws {
        var table = PlayerTable()
        let heard = Recorder<Int>()
        let a = table.register(advanced: true, timeline: try timeline())
        let b = table.register(advanced: true, timeline: try timeline())
        table.setCompletion(a) { _ in heard.append(a) }
        table.setCompletion(b) { _ in heard.append(b) }
        table.noteFinished(b, at: 1_000, fromStep: true)
        table.noteFinished(a, at: 2_000, fromStep: true)
        #expect(table.takeDue(now: 999).isEmpty && table.hasNotices)
        for c in table.takeDue(now: 2_000) { c(nil) }
        #expect(heard.values == [b, a] && !table.hasNotices)
    }

    @Test("a stop tells the players still playing or whose end was compiled but not reached, not the ones that finished")
    func endAllTellsTheCutShort() throws {
        var table = PlayerTable()
        let playing = table.register(advanced: true, timeline: try timeline())
        let finishing = table.register(advanced: true, timeline: try timeline())
        let idle = table.register(advanced: true, timeline: try timeline())
        for id in [playing, finishing, idle] { table.setCompletion(id) { _ in } }
        table.players[playing]?.schedule(.start, at: 0)
        table.noteFinished(finishing, at: 5_000, fromStep: true)
        #expect(table.endAll().count == 2)
        #expect(!table.anyActive && !table.hasNotices)
    }

    @Test("a released player goes once silent and its end heard, not before")
    func releasedPlayersGoWhenSilent() throws {
        var table = PlayerTable()
        let id = table.register(advanced: false, timeline: try timeline())
        table.players[id]?.schedule(.start, at: 0)
        table.release(id)
        #expect(table.count == 1)
        _ = table.endAll()
        table.noteFinished(id, at: 10, fromStep: false)
        _ = table.takeDue(now: 5)
        #expect(table.count == 1, "its end not heard yet")
        _ = table.takeDue(now: 10)
        #expect(table.count == 0 && table.released.isEmpty)
    }

    @Test("snapshots are taken one a service period; a rewind goes back to the last before T and re-applies what came since")
    func rewindRestoresAndReapplies() throws {
        var log = RewindLog()
        let compiler = DriveCompiler(target: try DriveTarget(profile: try profile(), variant: .drv2605L, calibration: nil))
        var players: [Int: PlayerPlayback] = [1: PlayerPlayback(id: 1, advanced: true, timeline: try timeline())]
        log.snapshot(at: 1_000, period: 2_000, players: players, compiler: compiler, lastActive: 0)
        log.snapshot(at: 2_000, period: 2_000, players: players, compiler: compiler, lastActive: 0)
        #expect(log.history.map(\.time) == [1_000], "one a period")
        log.log(player: 1) { $0.schedule(.start, at: 4_000) }
        players[1]?.schedule(.start, at: 4_000)
        log.snapshot(at: 3_000, period: 2_000, players: players, compiler: compiler, lastActive: 0)
        log.snapshot(at: 5_000, period: 2_000, players: players, compiler: compiler, lastActive: 0)
        // A player made after every snapshot comes back idle.
        players[2] = PlayerPlayback(id: 2, advanced: false, timeline: try timeline())
        let restored = log.restore(before: 2_500, current: players)
        let back = try #require(restored)
        #expect(back.snapshot.time == 1_000 && log.history.map(\.time) == [1_000])
        #expect(back.players[1]?.actions.map(\.time) == [4_000], "the start logged since is applied again")
        #expect(back.players[2]?.state == .idle && log.regeneratedBefore == 2_500)
        let tooEarly = log.restore(before: 500, current: players)
        #expect(tooEarly == nil)
        // Pruning keeps the last snapshot before now and the operations it lacks.
        log.snapshot(at: 7_000, period: 2_000, players: players, compiler: compiler, lastActive: 0)
        log.prune(now: 8_000)
        #expect(log.history.map(\.time) == [7_000] && log.operations.isEmpty)
        log.clear()
        #expect(log.history.isEmpty && log.regeneratedBefore == .min)
    }
}
