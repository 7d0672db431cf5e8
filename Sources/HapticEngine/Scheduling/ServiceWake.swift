import RealTime

/// When the service loop must run next: cost that follows the work.
///
/// A pass costs a thread wake-up, a device poll and the bookkeeping whether or not
/// anything changed, so passing every `servicePeriodMicroseconds` made a sparse
/// pattern (Beethoven5: 41 commands in 4.9 s) cost a tenth of a core. The loop sleeps
/// instead until the first of the things only a pass does comes due:
///
/// - a SYNC exchange (rounds every `syncIntervalMicroseconds`, the exchanges of a round
///   one service period apart) and a QUEUE_STATUS request (the underrun count and the
///   lag check, every `queueStatusIntervalMicroseconds` while anything sounds or comes
///   due; a quarter keep-alive apart while the engine idles: `queueStatusDue`);
/// - while anything sounds or is scheduled (players active, the compiler still shaping
///   a burst or a transition): the compile frontier coming within half a look-ahead of
///   the board's clock, so a window is compiled (one step per control period, exactly
///   as before: the same commands) and sent well before its stamps;
/// - compiled commands waiting for room in the board's queue: the first queued stamp
///   coming due frees a slot;
/// - a completion or "all finished" whose moment comes on the board, the idle timeout,
///   a chip fault whose status never came back, an untimed transaction waiting.
///
/// Never sooner than one service period after this pass (a full queue frees a slot a
/// command at a time; taking them one wake-up each would cost more than it buys).
/// Player operations compile and send their own first window at once (`update`), so
/// they need no pass; they wake the loop all the same (`wakeServiceLoop`) so its next
/// sleep is measured from what they scheduled.
extension HapticEngine {
    /// Host µs of the next pass after one at host `h` (board `now`, nil before sync).
    func nextServiceAt(host h: Int64, board now: Int64?) -> Int64 {
        let period = options.servicePeriodMicroseconds
        var next = min(queueStatusDue(board: now), link.nextSyncAt)
        if let since = scheduler.faultStopPending { next = min(next, since + 20_001) }
        if !link.untimed.isIdle { next = min(next, h + period) }
        guard let now, state != .stopped else { return max(next, h + period) }
        // Board µs → host µs: the clocks run together to a few ppm over these spans.
        func onHost(_ board: Int64) -> Int64 { h + max(0, board - now) }
        if state == .running {
            if anyPlayerActive || !(compiler?.isSettled ?? true) { next = min(next, onHost(scheduler.generatedUntil - lookAhead / 2)) }
            if !scheduler.pending.isEmpty || link.hasRetries { next = min(next, link.firstInFlight(after: now).map(onHost) ?? h + period) }
            if isAutoShutdownEnabled { next = min(next, onHost(scheduler.lastActive + options.idleTimeoutMicroseconds)) }
        }
        if let due = table.nextNoticeAt { next = min(next, onHost(due)) }
        if finishedHandler != nil, let last = link.lastStamp { next = min(next, onHost(last + 1)) }
        return max(next, h + period)
    }

    /// When the next QUEUE_STATUS request is due (host µs). It tells the underruns and
    /// the lag of the command the board ran last, so it is asked for every
    /// `queueStatusIntervalMicroseconds` while commands come due; that pass also picks
    /// up what the board says on its own (a chip fault's STOPPED) within the interval.
    /// While nothing sounds and no command comes due (an idle engine) a reply could say
    /// nothing new, and a request every quarter keep-alive keeps the session alive.
    func queueStatusDue(board now: Int64?) -> Int64 {
        guard state == .running, let now else { return scheduler.nextQueueStatusAt }
        if anyPlayerActive || !(compiler?.isSettled ?? true) || !scheduler.pending.isEmpty || link.hasRetries { return scheduler.nextQueueStatusAt }
        let quiet = scheduler.lastQueueStatusRequestAt + keepAliveMicroseconds / 4
        guard let due = link.firstInFlight(after: now) else { return max(scheduler.nextQueueStatusAt, quiet) }
        // Commands still to run: ask once the last has (its lag and underruns).
        let last = link.lastStamp ?? due
        return max(scheduler.nextQueueStatusAt, min(quiet, host() + (last - now)))
    }

    /// The service loop's sleep on a real clock: until `deadline` (host µs) or until a
    /// player operation calls `wakeServiceLoop`, whichever comes first.
    func sleepUntilServiceDue(host deadline: Int64) async {
        let now = host()
        guard deadline > now else { return }
        let wake = ServiceWake()
        serviceWake = wake
        defer { serviceWake = nil }
        let at = RealTimeExecutor.monotonicMicroseconds() + UInt64(deadline - now)
        await withCheckedContinuation(isolation: self) { (c: CheckedContinuation<Void, Never>) in
            wake.arm(c)
            executor.schedule(atMicroseconds: at) { wake.fire() }
        }
    }

    /// A player operation changed what the loop must do next: it passes now (on the
    /// engine's thread, after the operation's own job) and measures its sleep again.
    func wakeServiceLoop() { serviceWake?.fire() }
}

/// One sleep of the service loop, resumed once: by its timer or by a player operation.
/// @unchecked: both fields are touched only under `lock`.
final class ServiceWake: @unchecked Sendable {
    private let lock = MonotonicCondition()
    private var continuation: CheckedContinuation<Void, Never>?
    private var fired = false

    func arm(_ c: CheckedContinuation<Void, Never>) {
        let resumeNow = lock.withLock { () -> Bool in
            if fired { return true }
            continuation = c
            return false
        }
        if resumeNow { c.resume() }
    }

    func fire() {
        let c = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            fired = true
            defer { continuation = nil }
            return continuation
        }
        c?.resume()
    }
}
