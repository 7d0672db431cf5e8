import BridgeLink
import DeviceInterface
import BridgeProtocol
import HapticCompilation

/// The look-ahead scheduler. Every service pass:
///
/// 1. handles what the board said (sync replies, queue status, stops, NAKs) and
///    link events (disconnect, reappearance);
/// 2. every `syncIntervalMicroseconds` starts a SYNC round of
///    `syncExchangesPerRound` exchanges, one per pass (its fastest exchange feeds the
///    offset-and-drift fit), every `queueStatusIntervalMicroseconds` asks
///    for QUEUE_STATUS (which doubles as the keep-alive);
/// 3. mixes the players and compiles steps up to `now + lookAhead` (board time), one
///    step per control period, plus a step exactly at every player action;
/// 4. sends compiled commands while the board's queue, as the host accounts it
///    (sent stamps not yet due), has room: it never overfills the slots HELLO_REPLY
///    gave, and a command is counted late when it leaves later than its stamp minus
///    the link's one-way delay. The compiler has already paced them to the board's
///    intake (`DriveCompiler` rule 4, `BoardIntake`);
/// 5. watches the board keep up: a QUEUE_STATUS lag past `overloadLagMicroseconds`,
///    a send that failed, a host-silence stop while sending, each stops the engine
///    with its true cause (`stopIfSendFailed`, `checkBoardLag`).
///
/// A change (stop, seek, parameters) is mixed in at the first step not yet compiled,
/// so it lands within one look-ahead window. A stop that leaves nothing playing does
/// better: STOP_ALL flushes the board's queue at once.
extension HapticEngine {
    func startServiceTask() {
        guard options.driving == .automatic, serviceTask == nil else { return }
        serviceTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let keepGoing = await self.serviceAndWait()
                if !keepGoing { return }
                await Task.yield()
            }
        }
    }

    /// Automatic driving: while the device is gone, look at it now and then, so a board
    /// that comes back is noticed (the reset handler) without the client polling. Manual
    /// driving sees it at its next `advance`.
    func watchForReappearance() {
        guard options.driving == .automatic, watchTask == nil else { return }
        watchTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let self, await self.lookForReappearance() else { return }
            }
        }
    }

    /// One look; false once the device is back (or the engine is going away).
    func lookForReappearance() async -> Bool {
        guard !connected else {
            watchTask = nil
            return false
        }
        try? await letTimePass(untilHost: host() + options.reappearancePollMicroseconds)
        handle(link.pump())
        if connected { watchTask = nil }
        return !connected
    }

    /// One pass and the wait to the next; false once the engine has stopped.
    func serviceAndWait() async -> Bool {
        service()
        guard state != .stopped else { return false }
        let next = nextServiceAt(host: host(), board: boardNow())
        if link.isRealTime {
            await sleepUntilServiceDue(host: next)
        } else {
            do { try await letTimePass(untilHost: next) } catch {
                handle([.disconnected])
            }
        }
        return state != .stopped
    }

    /// Manual driving: lets `seconds` of host time pass, servicing on schedule. Works
    /// stopped too (the board runs on: its own safety stops still happen).
    public func advance(bySeconds seconds: Double) async throws(HapticEngineError) {
        let end = host() + (try Self.microseconds(seconds))
        while true {
            service()
            let now = host()
            if now >= end { break }
            let next = min(end, nextServiceAt(host: now, board: boardNow()))
            do { try await letTimePass(untilHost: next) } catch {
                handle([.disconnected])
                throw error.kind == .disconnected ? .deviceDisconnected : .deviceError(error.description)
            }
        }
    }

    func service() {
        // A pass this late after the last one ended means the host itself stalled
        // (what the board's lag is held against, `checkBoardLag`). Measured from the
        // end of the last pass, not its start: a send the board held up (its intake
        // slow, the link full behind it) is the host waiting on the board, not
        // stalling, and must not excuse the board's lag.
        let passAt = host()
        scheduler.servicePasses += 1
        if let last = scheduler.lastServiceAt, passAt - last > options.overloadLagMicroseconds / 2 { scheduler.lastServiceGapEnd = passAt }
        defer { scheduler.lastServiceAt = host() }
        handle(link.pump())
        guard state != .stopped, let now = boardNow() else { return serveUntimed(boardNow: boardNow()) }
        let h = host()
        // A round: a few exchanges on consecutive passes; the fastest one counts.
        try? linkSend { try link.syncIfDue(interval: options.syncIntervalMicroseconds, exchanges: options.syncExchangesPerRound) }
        if h >= queueStatusDue(board: now) {
            scheduler.nextQueueStatusAt = h + options.queueStatusIntervalMicroseconds
            scheduler.lastQueueStatusRequestAt = h
            try? linkSend { try link.requestQueueStatus() }
        }
        if let since = scheduler.faultStopPending, h - since > 20_000 {
            // No CHIP_STATUS came back: report the fault without its bits.
            scheduler.faultStopPending = nil
            stopInternally(reason: .chipFault([]))
            return
        }
        guard state == .running else {
            serveUntimed(boardNow: now)
            return stopIfSendFailed()
        }
        generate(upTo: horizon(now: now))
        try? sendPending(now: now)
        serveUntimed(boardNow: now)
        pruneHistory(now: now)
        checkIdle(now: now)
        stopIfSendFailed()
    }

    /// A send of this pass failed: the engine stops with that cause (a board that
    /// had been falling behind, a link that backed up: the overload) rather than go
    /// on sending nothing until the board's host-silence stop.
    func stopIfSendFailed() {
        guard let failure = scheduler.sendFailure, state != .stopped else { return }
        scheduler.sendFailure = nil
        if failure == .deviceDisconnected { return handle([.disconnected]) }
        if link.status.underruns > 0 || link.status.lagHighWater > options.overloadLagMicroseconds / 2 {
            options.logger.notice("a send failed while the board was behind", metadata: ["error": "\(failure)"])
            return stopInternally(reason: .boardFellBehind(overload(lag: link.status.lagHighWater)))
        }
        stopInternally(reason: .systemError("sending to the board failed: \(failure)"))
    }

    func overload(lag: Int64?, silenceAfterSend: Int64? = nil) -> BoardOverload {
        BoardOverload(
            lagMicroseconds: lag, underruns: link.status.underruns, writeSpacingMicroseconds: ownStatistics.writeSpacingMicroseconds,
            boardWriteSpacingMicroseconds: ownStatistics.boardWriteSpacingMicroseconds,
            silenceReportedAfterSendMicroseconds: silenceAfterSend)
    }

    var anyPlayerActive: Bool { table.anyActive }

    /// Mixes and compiles steps in (generatedUntil, until].
    func generate(upTo until: Int64) {
        guard var compiler else { return }
        defer { self.compiler = compiler }
        while true {
            let active = anyPlayerActive
            guard active || !compiler.isSettled else {
                // Nothing to play: the frontier follows the clock, so an immediate
                // start is stamped at now + lead rather than a window ahead.
                scheduler.generatedUntil = max(scheduler.generatedUntil, until - lookAhead)
                return
            }
            var t = scheduler.generatedUntil + options.controlStepMicroseconds
            if let a = players.values.compactMap({ $0.actions.first?.time }).min(), a > scheduler.generatedUntil, a < t { t = a }
            guard t <= until else { return }
            var notices: [PlayerPlayback.Notice] = []
            var parts: [PlayerPlayback.Contribution] = []
            for id in players.keys.sorted() {
                if let c = players[id]?.step(at: t, notices: &notices) { parts.append(c) }
                players[id]?.intensityControl.prune(before: t)
                players[id]?.sharpnessControl.prune(before: t)
                for n in notices { noteFinished(id, n) }
                notices.removeAll()
            }
            let mix = isMutedForHaptics ? (intensity: 0.0, sharpness: 0.0, transients: [DriveCompiler.Transient]())
                : Mixer.mix(parts)
            let commands = compiler.step(time: t, intensity: mix.intensity, sharpness: mix.sharpness, transients: mix.transients)
            // After a rewind, what comes out before the rewind's time is already queued.
            for c in commands where c.time >= scheduler.rewindLog.regeneratedBefore { scheduler.pending.append(Self.stamped(c)) }
            if mix.intensity > 0 || !mix.transients.isEmpty || active { scheduler.lastActive = t }
            scheduler.generatedUntil = t
            takeSnapshot(at: t, compiler: compiler)
            ownStatistics.mergedWrites = compiler.mergedWrites
            ownStatistics.delayedWrites = compiler.delayedWrites
        }
    }

    func noteFinished(_ id: Int, _ notice: PlayerPlayback.Notice) {
        let at: Int64
        switch notice {
        case .finished(let t), .stopped(let t): at = t
        }
        table.noteFinished(id, at: at, fromStep: true)
    }

    /// Sends compiled commands while the board's queue has room, all of a pass in one
    /// transfer: the link's per-transfer cost (a USB submission and bus slot; on the
    /// ATmega32U4 port ~125 µs to take in a lone frame against ~93 µs a frame in a
    /// batch) is paid once per pass rather than per command.
    func sendPending(now: Int64) throws(HapticEngineError) {
        // The link sends what the board's queue has room for (two slots kept free),
        // what it took back after a refusal first.
        let count = try linkSend { try link.sendStamped(scheduler.pending[...], boardNow: now) }
        guard count > 0 else { return deliverDueNotices(now: now) }
        if options.keepsSentCommandLog { sentCommands += scheduler.pending.prefix(count).map(Self.timed) }
        scheduler.pending.removeFirst(count)
        deliverDueNotices(now: now)
    }

    static func timed(_ c: StampedCommand) -> TimedCommand {
        switch c.kind {
        case .rtp(let a): TimedCommand(time: c.time, command: .rtp(Int8(bitPattern: a)))
        case .register(let r, let v): TimedCommand(time: c.time, command: .register(r, v))
        case .stop: TimedCommand(time: c.time, command: .stop)
        }
    }

    static func stamped(_ c: TimedCommand) -> StampedCommand {
        switch c.command {
        case .rtp(let a): StampedCommand(time: c.time, kind: .rtp(UInt8(bitPattern: a)))
        case .register(let r, let v): StampedCommand(time: c.time, kind: .register(r, v))
        case .stop: StampedCommand(time: c.time, kind: .stop)
        }
    }

    /// Other tasks' register access: the link sends the next transaction waiting (the
    /// board runs it in the stream's next gap).
    func serveUntimed(boardNow now: Int64?) {
        guard !link.untimed.isIdle else { return }
        link.sendUntimed()
    }

    /// Completion handlers when their moment has come on the board.
    func deliverDueNotices(now: Int64) {
        for c in table.takeDue(now: now) { deliver { c(nil) } }
    }

    func checkIdle(now: Int64) {
        let active = anyPlayerActive || !(compiler?.isSettled ?? true) || table.hasNotices
        // Finished once nothing is left to send and the board has run all it was sent.
        // Refused commands waiting to go again are still to run.
        if !active, let handler = finishedHandler, scheduler.pending.isEmpty, !link.hasRetries, !link.holdsStamped(from: now + 1) {
            finishedHandler = nil
            deliver { [weak self] in
                let action = handler(nil)
                guard action == .stopEngine, let self else { return }
                Task { await self.stopInternally(reason: .notifyWhenFinished) }
            }
        }
        if !active, isAutoShutdownEnabled, now - scheduler.lastActive >= options.idleTimeoutMicroseconds, state == .running {
            // Standby: the chip's own low-power state, the session kept alive.
            let at = max(now + lead(), scheduler.generatedUntil)
            scheduler.pending.append(StampedCommand(time: at, kind: .stop))
            try? sendPending(now: now)
            state = .standby
            if let handler = stoppedHandler { deliver { handler(.idleTimeout) } }
        }
    }

    /// Flushes the board (STOP_ALL) when a stop leaves nothing playing.
    func flushIfSilent() {
        guard !anyPlayerActive, let now = boardNow() else { return }
        try? linkSend { try link.sendStopAll() }
        scheduler.pending.removeAll()
        clearHistory()
        compiler?.reset()
        scheduler.generatedUntil = max(scheduler.generatedUntil, now)
        deliverDueNotices(now: .max)
    }

    // MARK: what the board says

    func handle(_ events: [LinkEvent]) {
        for event in events {
            switch event {
            case .disconnected:
                connected = false
                stopInternally(reason: .deviceDisconnected)
                watchForReappearance()
            case .reappeared:
                options.logger.info("the device is back")
                connected = true
                boardReset()
            case .queueStatus(_, let lag):
                if let lag { checkBoardLag(lag) }
            case .chipStatus(let c):
                if scheduler.faultStopPending != nil {
                    scheduler.faultStopPending = nil
                    stopInternally(reason: .chipFault(ChipFaults(rawValue: c.faults)))
                }
            case .refused(let nak, let command):
                // The link takes the refused run back and sends it again; what can no
                // longer be on time it counts late, by reason.
                options.logger.debug(
                    "the board refused a frame",
                    metadata: ["reason": "\(nak.reason)", "type": "\(nak.type)", "stamp": "\(command.map { "\($0.time)" } ?? "-")"])
            case .stopped(let s):
                boardStopped(s)
            case .acknowledged:
                break
            }
        }
    }

    func boardStopped(_ s: BoardFrame.Stopped) {
        switch s.reason {
        case .fault:
            scheduler.faultStopPending = host()
            try? linkSend { try link.requestChipStatus() }
        case .maxDrive: stopInternally(reason: .driveTimeLimit)
        case .hostSilent:
            // Frames sent within the keep-alive that the board never took in: it
            // fell behind, its intake starved or the link backed up behind it.
            // A host that was itself stalled (no send for most of a keep-alive,
            // lately) was silent: the board is right.
            let now = host()
            let stalled = link.lastSilentSpellEnd.map { now - $0 < 2 * keepAliveMicroseconds } ?? false
            if !stalled, let sent = link.lastSentAt, now - sent < keepAliveMicroseconds {
                stopInternally(reason: .boardFellBehind(overload(lag: nil, silenceAfterSend: now - sent)))
            } else {
                stopInternally(reason: .systemError("the board stopped: no frame from the host within its keep-alive"))
            }
        case .bootloader: stopInternally(reason: .systemError("the board entered its bootloader"))
        default: break  // HOST_REQUEST: our own STOP_ALL
        }
    }

    /// The lag of the command the board ran last (QUEUE_STATUS: its start − its
    /// stamp). Beyond `overloadLagMicroseconds`, with the host's own service passes
    /// on time meanwhile, the board is behind what it was sent (its queue, or the
    /// frames waiting in the link for its intake): stop and say so. A host that
    /// stalled (a pass that came that late) sent late itself; the board then runs
    /// what arrives on arrival and catches up.
    func checkBoardLag(_ lag: Int64) {
        // The link reports a lag only for a command run since the last report (the
        // first report may describe an earlier session's).
        let hostStalled = scheduler.lastServiceGapEnd.map { host() - $0 < lag + options.overloadLagMicroseconds } ?? false
        guard lag > options.overloadLagMicroseconds, !hostStalled, state != .stopped else { return }
        stopInternally(reason: .boardFellBehind(overload(lag: lag)))
    }
}
