import BridgeProtocol
import HapticCompilation

/// Deep streaming and its rewind.
///
/// A board that speaks protocol 1.1 can drop the commands it has queued from a time
/// on (REPLACE_FROM). So the scheduler compiles far ahead (`deepLookAheadMicroseconds`)
/// and sends as much as the board's queue holds: a host stall shorter than that span
/// costs nothing. A change must still land at now + lead, though, and by then the mix
/// is compiled well past it. So every service period's worth of steps the scheduler
/// keeps a snapshot of the mix (every player and the compiler, all value types); a
/// player operation at time T
/// goes back to the last snapshot before T, re-applies the operations made since that
/// snapshot, applies its own, and compiles forward again:
///
/// - everything before T comes out exactly as it did, because every operation is an
///   action or parameter entry at its own time (PlayerPlayback), never a change to the
///   state "now"; those commands are on the board or still pending, and are not sent
///   again (`regeneratedBefore`);
/// - what was sent for T and later is taken back with one REPLACE_FROM T, and the new
///   commands follow it.
///
/// On a 1.0 board there is no way to take commands back: the look-ahead stays short
/// (`lookAheadMicroseconds`) and a change lands at the first step not yet compiled.
struct MixSnapshot: Sendable {
    /// The step this is the state after.
    var time: Int64
    var players: [Int: PlayerPlayback]
    var compiler: DriveCompiler?
    var lastActive: Int64
    /// Operations already in these players (`operationCount` when it was taken).
    var operationsApplied: Int
}

struct LoggedOperation: Sendable {
    var sequence: Int
    var player: Int
    var apply: @Sendable (inout PlayerPlayback) -> Void
}

/// The rewind's memory, as a value: a snapshot of the mix one service period apart,
/// the player operations made since the oldest, and the point before which
/// regenerated commands are already on the board. The engine holds one.
struct RewindLog: Sendable {
    private(set) var history: [MixSnapshot] = []
    private(set) var operations: [LoggedOperation] = []
    private(set) var operationCount = 0
    /// After a rewind to T, commands regenerated before T are already on the board (or
    /// still pending) exactly as they were: they are not sent again.
    private(set) var regeneratedBefore = Int64.min

    /// Remembers an operation so a rewind to before it can apply it again.
    mutating func log(player: Int, _ apply: @escaping @Sendable (inout PlayerPlayback) -> Void) {
        operationCount += 1
        operations.append(LoggedOperation(sequence: operationCount, player: player, apply: apply))
    }

    /// One snapshot a `period`, not one a step: storing one shares the players with
    /// the history, so the next step copies them. A rewind replays from the snapshot
    /// before its time anyway, so at most a period's steps more.
    mutating func snapshot(at time: Int64, period: Int64, players: [Int: PlayerPlayback], compiler: DriveCompiler, lastActive: Int64) {
        if let last = history.last, time - last.time < period { return }
        history.append(MixSnapshot(time: time, players: players, compiler: compiler, lastActive: lastActive, operationsApplied: operationCount))
    }

    /// Keeps what a rewind may still need: the last snapshot before `now` and every
    /// later one (a change lands at now + lead, never before now), and the operations
    /// those snapshots do not contain.
    mutating func prune(now: Int64) {
        // Every service pass asks: most of the time the first snapshot is still the
        // last before `now`, and nothing is to go.
        if history.count > 1, history[1].time < now, let keep = history.lastIndex(where: { $0.time < now }) { history.removeFirst(keep) }
        guard let first = operations.first else { return }
        let oldest = history.first?.operationsApplied ?? operationCount
        if first.sequence <= oldest { operations.removeAll { $0.sequence <= oldest } }
    }

    /// Forgets everything (after a flush, a stop, a reset: the board's queue is empty
    /// and the mix starts again from here).
    mutating func clear() {
        history.removeAll()
        operations.removeAll()
        regeneratedBefore = .min
    }

    /// Goes back for an operation at `t`: the last snapshot before `t` (later ones
    /// dropped), with `current`'s players as they were then — a player made since was
    /// idle, with nothing scheduled — and every operation made since re-applied. nil
    /// when no snapshot lies before `t`.
    mutating func restore(before t: Int64, current: [Int: PlayerPlayback]) -> (snapshot: MixSnapshot, players: [Int: PlayerPlayback])? {
        guard let i = history.lastIndex(where: { $0.time < t }) else { return nil }
        let s = history[i]
        history.removeSubrange((i + 1)...)
        var restored: [Int: PlayerPlayback] = [:]
        for (id, now) in current {
            restored[id] = s.players[id] ?? PlayerPlayback(id: now.id, advanced: now.advanced, timeline: now.timeline)
        }
        for op in operations where op.sequence > s.operationsApplied {
            guard var p = restored[op.player] else { continue }
            op.apply(&p)
            restored[op.player] = p
        }
        regeneratedBefore = t
        return (s, restored)
    }
}

extension HapticEngine {
    /// How far ahead of the board's clock the mix is compiled.
    var lookAhead: Int64 { scheduler.canReplace ? options.deepLookAheadMicroseconds : options.lookAheadMicroseconds }

    /// Where compilation runs to, for a board clock of `now`.
    func horizon(now: Int64) -> Int64 { now + lookAhead }

    /// Remembers an operation so a rewind to before it can apply it again.
    func logOperation(on id: Int, _ apply: @escaping @Sendable (inout PlayerPlayback) -> Void) {
        guard scheduler.canReplace else { return }
        scheduler.rewindLog.log(player: id, apply)
    }

    func takeSnapshot(at time: Int64, compiler: DriveCompiler) {
        guard scheduler.canReplace else { return }
        scheduler.rewindLog.snapshot(at: time, period: options.servicePeriodMicroseconds, players: players, compiler: compiler, lastActive: scheduler.lastActive)
    }

    func pruneHistory(now: Int64) { scheduler.rewindLog.prune(now: now) }

    func clearHistory() { scheduler.rewindLog.clear() }

    /// Goes back to the last step before `t` when the mix is compiled to `t` or past
    /// it, so an operation at `t` lands there. See the type's documentation.
    func rewind(before t: Int64) throws(HapticEngineError) {
        guard scheduler.canReplace, t <= scheduler.generatedUntil, let (s, restored) = scheduler.rewindLog.restore(before: t, current: players) else { return }
        players = restored
        compiler = s.compiler
        scheduler.lastActive = s.lastActive
        scheduler.generatedUntil = s.time
        // Unsent commands before t stand (nothing before t changes); the rest is recompiled.
        scheduler.pending.removeAll { $0.time >= t }
        table.dropCompiledNotices(after: s.time)
        if options.keepsSentCommandLog { sentCommands.removeAll { $0.time >= t } }
        // The link takes back what the board holds from t on (REPLACE_FROM), and what
        // it was about to send again there.
        guard try linkSend({ try link.takeBack(from: t) }) else { return }
        options.logger.trace("replaced what was queued", metadata: ["from": "\(t)", "rewoundTo": "\(s.time)"])
        ownStatistics.replacements += 1
    }
}
