import BridgeLink
import BridgeProtocol
import DeviceInterface
import DRV2605
import HapticCompilation
import RealTime

extension HapticEngine {
    /// Opens a session with the board (HELLO), syncs the clocks, and prepares the
    /// device (see `prepare`). Returns when the first event can play on time.
    public func start() async throws(HapticEngineError) {
        switch state {
        case .running: return
        case .standby:
            wake()
            return
        case .stopped: break
        }
        guard connected else { throw .deviceDisconnected }
        scheduler.sendFailure = nil
        link.keepsDeliveredCommands = options.keepsSentCommandLog
        // The session: HELLO through the link, once, whoever else uses the board.
        try linkSend {
            try link.beginOpen(.init(
                keepAliveMilliseconds: options.keepAliveMilliseconds, maxDriveMilliseconds: options.maxDriveMilliseconds,
                protocolMinor: options.protocolMinor))
        }
        let deadline = host() + options.startTimeoutMicroseconds
        while link.isAwaitingHello {
            try await waitBriefly(deadline: deadline)
        }
        // Starting again is the client's acknowledgement of a chip fault: the link
        // unlatches it (the board refuses stamped commands while one is latched). A
        // fault still present latches again at the board's next STATUS read and stops
        // us again.
        try linkSend { try link.completeOpen() }
        guard let reply = link.helloReply else { throw .startTimeout }
        guard reply.deviceID != 0xFF, let v = DeviceVariant(deviceID: reply.deviceID) else {
            throw .protocolError(ChipProbe.notFound(deviceID: reply.deviceID, advice: link.transport.i2cNoAcknowledgeAdvice))
        }
        variant = v
        scheduler.canReplace = link.canReplace
        clearHistory()
        try await syncRound(deadline: host() + options.startTimeoutMicroseconds)
        // The pacing: the board's own intake (HELLO_REPLY), unless the client set one.
        let boardSpacing = Int64(reply.writeSpacingMicroseconds ?? BoardFrame.HelloReply.unstatedWriteSpacingMicroseconds)
        let spacing = options.writeSpacingMicroseconds ?? boardSpacing
        do {
            let calibration = options.calibration ?? options.storedCalibration?(link.identity?.serialNumber)
            let t = try DriveTarget(profile: profile, variant: v, calibration: calibration)
            target = t
            var c = DriveCompiler(target: t)
            c.writeSpacingMicroseconds = spacing
            compiler = c
        } catch { throw .compilation(error) }
        ownStatistics = StreamStatistics()
        ownStatistics.writeSpacingMicroseconds = spacing
        ownStatistics.boardWriteSpacingMicroseconds = boardSpacing
        scheduler.lastServiceAt = nil
        scheduler.lastServiceGapEnd = nil
        options.logger.debug(
            "started", metadata: [
                "device": "\(link.summary)", "protocol": "\(reply.protocolMajor).\(reply.protocolMinor)", "chip": "\(v)",
                "loop": "\(target?.loop == .closed ? "closed" : "open")", "deepStreaming": "\(scheduler.canReplace)",
                "thread": "\(serviceThreadScheduling)",
            ])
        everStarted = true
        state = .running
        let ready = try prepare()
        // Return once the board has run the warm-up, so a player started right after
        // pays nothing for it (the seeds' "prepare before you play").
        let readyBy = host() + options.startTimeoutMicroseconds
        while let now = boardNow(), now < ready { try await waitBriefly(deadline: readyBy) }
        try await waitForEmptyQueue(deadline: readyBy)
        startServiceTask()
    }

    /// Always calls `completion` (on the callback queue), with nil or the error.
    public nonisolated func start(completion: @escaping @Sendable (HapticEngineError?) -> Void) {
        Task {
            do throws(HapticEngineError) {
                try await self.start()
                self.callbacks.async { completion(nil) }
            } catch {
                self.callbacks.async { completion(error) }
            }
        }
    }

    /// Stops every player and the actuator at once (STOP_ALL flushes the board's
    /// queue). The stopped handler is not called: the client asked.
    public func stop() async {
        stopInternally(reason: nil)
    }

    /// Waits until the board has accounted for every stamped command it was sent: each
    /// ran, was flushed by a stop or taken back by a change, and nothing refused still
    /// waits to go again (a stopped engine has given those up). It asks for QUEUE_STATUS
    /// until one answers with the board's queue empty, sending what waits to go again
    /// meanwhile; at most `timeoutMicroseconds` of host time. True when it got there:
    /// `statistics` then counts what the chip really got (`commandsRun`). False when the
    /// device went away or the board kept commands longer than that.
    @discardableResult
    public func settleDelivery(timeoutMicroseconds: Int64 = 2_000_000) async -> Bool {
        let deadline = host() + timeoutMicroseconds
        var asked: Int?
        while connected {
            service()
            if let a = asked, link.frames.isAccounted(a) {
                let d = link.delivery
                if d.isKnown, d.queued == 0, !link.hasRetries, !link.frames.holdsCommands, scheduler.pending.isEmpty || state == .stopped {
                    return true
                }
                asked = nil
            }
            guard host() < deadline else { return false }
            if asked == nil {
                asked = link.frames.nextIndex
                if (try? linkSend({ try link.requestQueueStatus() })) == nil { return false }
            }
            do { try await letTimePass(untilHost: host() + 1_000) } catch {
                handle([.disconnected])
                return false
            }
        }
        return false
    }

    /// Stops (as `stop()`) and lets go of the device: a bridge board's USB interface is
    /// released, so another program can open it. The engine cannot start again.
    public func close() async {
        watchTask?.cancel()
        watchTask = nil
        stopInternally(reason: nil)
        link.close()
        connected = false
    }

    /// Always calls `completion` (on the callback queue).
    public nonisolated func stop(completion: @escaping @Sendable (HapticEngineError?) -> Void) {
        Task {
            await self.stop()
            self.callbacks.async { completion(nil) }
        }
    }

    /// The seeds' "prepare before you play": writes the chip setup for the actuator
    /// and takes the chip out of standby with an RTP 0 (so the first event does not
    /// pay the MODE write), stamped at the earliest time that can reach the board.
    /// `start()` calls it; a wake from standby calls it again.
    @discardableResult
    func prepare() throws(HapticEngineError) -> Int64 {
        guard let target, let now = boardNow() else { return 0 }
        // The block ends with RTP 0: the compiler knows the chip is at rest.
        compiler?.resetToRest()
        // A block of frames: the last must be taken in before the shared stamp. It
        // spans two bulk OUT packets or more, and a board streaming its accelerometer
        // may read the sensor between two of them (beside the read `lead()` allows for
        // at its arrival): one more read's time (`BridgeLink.intakeHoldMicroseconds`).
        let intake = Int64(target.setupWrites.count) * options.frameIntakeMicroseconds + link.intakeHoldMicroseconds
        let at = max(now + lead() + intake, scheduler.generatedUntil)
        scheduler.pending += target.setupCommands(at: at).map(Self.stamped)
        scheduler.pending.append(StampedCommand(time: at, kind: .rtp(0)))
        clearHistory()
        scheduler.generatedUntil = at
        scheduler.lastActive = at
        try sendPending(now: now)
        return at
    }

    func wake() {
        guard state == .standby else { return }
        state = .running
        _ = try? prepare()
    }

    /// Asks for QUEUE_STATUS until the board reports its queue empty. A board takes
    /// frames in at its own pace (the ATmega32U4 port: ~93 µs a frame), so a setup
    /// block can still be arriving when its stamp has passed (a slow or jittery link);
    /// the first event must not queue behind it.
    func waitForEmptyQueue(deadline: Int64) async throws(HapticEngineError) {
        while true {
            link.forgetQueueStatus()
            try linkSend { try link.requestQueueStatus() }
            while link.status.last == nil { try await waitBriefly(deadline: deadline) }
            if let q = link.status.last, q.freeSlots == q.capacity { break }
        }
        // Idle, the compile frontier follows the clock (as `generate` keeps it).
        if let now = boardNow() { scheduler.generatedUntil = max(scheduler.generatedUntil, now) }
    }

    /// One SYNC round at start: a few exchanges, each awaited.
    func syncRound(deadline: Int64) async throws(HapticEngineError) {
        for _ in 0..<max(1, options.syncExchangesPerRound) {
            try linkSend { try link.sendSync() }
            while link.syncsAwaited {
                try await waitBriefly(deadline: deadline)
            }
        }
        link.closeSyncRound()
        guard link.clock.estimate != nil else { throw .startTimeout }
    }

    /// Waits 100 µs of host time for replies, handling what arrived.
    func waitBriefly(deadline: Int64) async throws(HapticEngineError) {
        if host() >= deadline { throw .startTimeout }
        do { try await letTimePass(untilHost: host() + 100) } catch {
            throw error.kind == .disconnected ? .deviceDisconnected : .deviceError(error.description)
        }
        handle(link.pump())
        if !connected { throw .deviceDisconnected }
    }

    func host() -> Int64 { link.hostNow }

    /// Lets host time reach `target`: a real clock is slept out on the engine's own
    /// thread (its timed wait, not Dispatch's timer); virtual time is advanced by the
    /// device.
    func letTimePass(untilHost target: Int64) async throws(DeviceError) {
        guard link.isRealTime else {
            try await link.transport.wait(untilHostMicroseconds: UInt64(max(0, target)), isolation: self)
            return
        }
        let now = host()
        guard target > now else { return }
        await executor.sleep(untilMicroseconds: RealTimeExecutor.monotonicMicroseconds() + UInt64(target - now))
    }

    /// Sends through the link. A failure is also kept (`sendFailure`) for the
    /// service pass: its status requests and syncs are sent without waiting on the
    /// outcome, and an engine that goes on after a send failed would leave the board
    /// to stop for host silence, which is not what happened.
    @discardableResult
    func linkSend<T>(_ body: () throws -> T) throws(HapticEngineError) -> T {
        // The closures are the link's calls, which throw `BridgeLinkError` only
        // (closures do not infer typed throws).
        do { return try body() } catch {
            let e = (error as? BridgeLinkError).map(Self.engineError) ?? .deviceError("\(error)")
            if scheduler.sendFailure == nil { scheduler.sendFailure = e }
            throw e
        }
    }

    static func engineError(_ error: BridgeLinkError) -> HapticEngineError {
        switch error {
        case .device(let d): d.kind == .disconnected ? .deviceDisconnected : .deviceError(d.description)
        case .protocolVersion(let v): .protocolError("board speaks protocol \(v), this host \(HostFrameEncoder.protocolMajor).x")
        case .noAnswer: .startTimeout
        default: .deviceError(error.description)
        }
    }

    /// The session's keep-alive as the board took it (HELLO_REPLY), µs.
    var keepAliveMicroseconds: Int64 { link.keepAliveMicroseconds }

    /// Stops everything; `reason` nil for a client stop (no stopped handler).
    func stopInternally(reason: StoppedReason?) {
        guard state != .stopped else { return }
        if let reason { options.logger.notice("stopped", metadata: ["reason": "\(reason)"]) } else { options.logger.debug("stopped by the client") }
        if connected { try? linkSend { try link.sendStopAll() } }
        state = .stopped
        serviceTask?.cancel()
        serviceTask = nil
        scheduler.pending.removeAll()
        clearHistory()
        compiler?.reset()
        finishedHandler = nil
        endAllPlayers(error: .engineStopped)
        // The STOP_ALL above may have failed too: this stop has its reason already.
        scheduler.sendFailure = nil
        if let reason, let handler = stoppedHandler { deliver { handler(reason) } }
    }

    /// Every player stops; the completion handlers of those that were still playing
    /// (or paused, or scheduled) hear `error`; those that had finished heard already.
    func endAllPlayers(error: HapticEngineError?) {
        // A player whose end was compiled but not yet reached ends now, cut short.
        for c in table.endAll() { deliver { c(error) } }
    }

    /// The board went away or came back after a reset: the session is gone. Players
    /// are invalid (Core Haptics: recreate them in the reset handler); patterns and
    /// engine settings survive; the engine is stopped until started again.
    func boardReset() {
        let wasStarted = everStarted
        stopInternally(reason: nil)
        table.newSession()
        scheduler.generatedUntil = 0
        if wasStarted, let handler = resetHandler { deliver { handler() } }
    }
}
