import BridgeProtocol
import CHapbridgeProtocol
import DeviceInterface

/// The one sender of frames on a board's transport, and the one reader of what comes
/// back (Firmware/PROTOCOL.md). It does what every client of a board needs once:
/// HELLO and the board's identity, sequence numbers, keep-alive, clock sync, queue
/// status, NAKs; and it serves its clients side by side:
///
/// - a stamped stream (an engine's): `sendStamped`, `takeBack(from:)` (REPLACE_FROM),
///   with refused commands taken back and sent again in order (`StampedLedger`);
/// - untimed register access at any I2C address (`perform`, `i2cBus`), one request
///   in flight, which the board runs in the stream's next gap so it never delays a
///   stamped command (`UntimedQueue`, `sendUntimed`);
/// - `enterBootloader()`, which says where the board went;
/// - the transport's capabilities: `telemetry`, `diagnostics`.
///
/// Two ways to drive it. An owner with its own service loop (the engine) calls the
/// synchronous steps — `beginOpen`/`completeOpen`, `pump`, `sendStamped`,
/// `sendUntimed` — and waits its own way. A bench procedure with no loop of its
/// own uses the `async` methods (`open`, `perform`, `wait`, `stopAll`), which pump and
/// wait on the transport's clock themselves.
///
/// Not `Sendable`, like the transport it owns: one isolation domain drives it (an
/// engine takes it whole, `HapticEngine(link:)`, and offers its bus to other tasks).
public final class BridgeLink {
    public struct OpenOptions: Sendable, Equatable {
        /// How long the board waits for the next frame before it stops and closes the
        /// session; by default the board's own (`HostFrameEncoder.defaultKeepAliveMilliseconds`).
        public var keepAliveMilliseconds: UInt16
        /// The board's continuous-drive limit; 0 asks for the board's default
        /// (`HostFrameEncoder.defaultMaxDriveMilliseconds`), which bench sessions keep.
        public var maxDriveMilliseconds: UInt16
        /// The protocol minor offered (lower it to talk as a 1.0 host would).
        public var protocolMinor: UInt8

        public init(keepAliveMilliseconds: UInt16 = HostFrameEncoder.defaultKeepAliveMilliseconds, maxDriveMilliseconds: UInt16 = 0, protocolMinor: UInt8 = HostFrameEncoder.protocolMinor) {
            self.keepAliveMilliseconds = keepAliveMilliseconds
            self.maxDriveMilliseconds = maxDriveMilliseconds
            self.protocolMinor = protocolMinor
        }
    }

    /// What went over the link this session.
    public struct Statistics: Sendable, Equatable {
        /// Stamped commands handed to the board for the first time.
        public var stampedSent = 0
        /// Of those, sent later than their stamp minus the link's one-way delay.
        public var late = 0
        /// Commands sent again after the board refused them (or one before them).
        public var resent = 0
        /// Commands the client took back (its own REPLACE_FROM, `takeBack(from:)`):
        /// replaced by newer ones, never to run.
        public var withdrawn = 0
        /// Of those, sent again too late to run on their stamps (the board runs them
        /// on arrival): late because the board refused them.
        public var lateAfterRefusal = 0
        /// The most stamped commands the host counted on the board at once.
        public var queueHighWater = 0
        /// Untimed transactions answered.
        public var untimedAnswered = 0
        /// Frames the board numbered but the host never got (gaps in the board's own
        /// sequence): replies it had no room to send, or lost on the way. A lost NAK
        /// leaves a refused command looking accepted (`Delivery` then cannot be exact).
        public var boardFramesLost = 0
        public init() {}
    }

    public let transport: any FrameTransport
    /// Where the board was opened (`usb:1-2`, `sim`): where `enterBootloader` says it went.
    public let address: String?
    /// How long a reply may take before the board counts as not answering. Generous:
    /// a full-speed round trip is 1-2 ms, an untimed 32-byte read ~1 ms on the bus, but
    /// a host loaded to its limit (a CI runner, an emulated board sharing its cores) can
    /// hold either end off the CPU for hundreds of milliseconds: a slow host is not a
    /// dead board.
    public static let defaultReplyTimeoutMicroseconds: UInt64 = 2_000_000
    public var replyTimeoutMicroseconds: UInt64 = defaultReplyTimeoutMicroseconds
    /// Asked while an `async` method waits: a reason to give up now ("interrupted by
    /// SIGINT"), or nil to go on. Waits are cut into steps of at most
    /// `interruptionCheckMicroseconds` while it is set.
    public var interruption: (@Sendable () -> String?)?
    public static let interruptionCheckMicroseconds: UInt64 = 5_000

    public private(set) var identity: BoardIdentity?
    public private(set) var helloReply: BoardFrame.HelloReply?
    public private(set) var clock = LinkClock()
    public private(set) var status = BoardStatus()
    public private(set) var statistics = Statistics()
    public private(set) var ledger = StampedLedger()
    /// Frames sent that the board has not yet accounted for (`SentFrames`).
    public private(set) var frames = SentFrames()
    /// What became of the stamped commands the board took in this session, by its own
    /// count (`Delivery`).
    public private(set) var delivery = Delivery()
    /// Keep every accepted command with its fate (`delivery.items`), for a record of
    /// what the chip got; set before `beginOpen`.
    public var keepsDeliveredCommands = false
    public private(set) var untimed = UntimedQueue()
    public private(set) var isConnected = true
    /// Host time of the last frame handed to the transport.
    public private(set) var lastSentAt: Int64?
    /// Host time the last spell of most of a keep-alive without a send ended (a
    /// stalled host): a host-silence stop soon after it is the truth.
    public private(set) var lastSilentSpellEnd: Int64?

    private var encoder = HostFrameEncoder()
    private var awaitingHello = false
    private var openOptions = OpenOptions()
    private var discardedBeforeHello = 0
    /// The REPLACE_FROM sent to take back a refused run; nothing stamped goes until
    /// its REPLACED says how much room the board has.
    private var replacementAwaited: UInt8?
    /// After a refusal, the board's own count of free slots bounds what is sent (the
    /// host's count assumed commands ran on their stamps, which a lagging board did
    /// not): free slots as reported, and how many stamped frames had been sent then.
    private var backoff: (free: Int, mark: Int)?
    private var stampedFramesTotal = 0
    /// The sequence number the board's next frame should carry (it numbers its own).
    private var nextBoardSequence: UInt8?
    /// For each QUEUE_STATUS request awaiting its reply, by its sequence number: how
    /// many stamped frames had been sent when it went (what its free-slot count is
    /// measured against).
    private var statusRequestMarks: [UInt8: Int] = [:]
    /// Stamped commands sent since the last QUEUE_STATUS request.
    private var commandsSinceStatusRequest = 0
    /// A QUEUE_STATUS request goes at least this often among stamped commands: its
    /// reply accounts for the silent ones before it long before `SentFrames.commandRoom`
    /// runs out (a board catching up after a stall takes them in faster than the
    /// engine's periodic request comes).
    public static let commandsPerStatusRequest = SentFrames.commandSpan / 3
    /// Frames an `async` wait set aside for whoever waits on them (ACKs).
    private var inbox: [LinkEvent] = []

    public init(transport: any FrameTransport, address: String? = nil) {
        self.transport = transport
        self.address = address
    }

    public var hostNow: Int64 { Int64(transport.hostMicroseconds) }
    public var summary: String { transport.summary }
    public var isRealTime: Bool { transport.isRealTime }
    /// The board's time now as the host estimates it; nil before the first SYNC.
    public var boardNow: Int64? { clock.board(atHost: hostNow) }
    /// The board's time at a host time; nil before the first SYNC. (Read through the
    /// link, not `clock`, on a hot path: the clock is a value, copied when read.)
    public func boardTime(atHost host: Int64) -> Int64? { clock.board(atHost: host) }
    /// Half the fastest SYNC round trip: how long a frame takes to reach the board at best.
    public var oneWayMicroseconds: Int64 { clock.oneWayMicroseconds }
    /// How much later than the fastest exchange frames have lately reached the board.
    public var deliverySpreadMicroseconds: Int64 { clock.deliverySpreadMicroseconds }
    /// What an immediate start must add to the lead so its first commands reach the
    /// board in time to run on their stamps: the delivery spread, where it is more
    /// than the board tolerates (a command starting up to `HB_LATE_TOLERANCE_US` late
    /// is on time to the board, PROTOCOL.md); 0 on a link steadier than that, where a
    /// start pays nothing for it.
    public var startAnchorMicroseconds: Int64 {
        let spread = clock.deliverySpreadMicroseconds
        return spread > Int64(HB_LATE_TOLERANCE_US) ? spread : 0
    }
    /// How long the board may be away from its USB intake when a frame reaches it:
    /// while it streams its accelerometer, its longest sensor read
    /// (`longestSensorReadMicroseconds`); 0 otherwise. The firmware reads the sensor's
    /// FIFO in its main loop, between two bulk OUT packets (Firmware/core/lis3dh.c,
    /// `hbi_accel_poll`), sized to end before the commands already queued, not before
    /// the ones still arriving: a block of commands sharing one stamp whose second
    /// packet waited behind a read was still coming in at its stamp, and the commands
    /// taken in after the queue had run dry started on their own, late (underruns a
    /// real board counts too: under simavr, 1–8 in the first play after a replug).
    public var intakeHoldMicroseconds: Int64 { sensor == nil ? 0 : Self.longestSensorReadMicroseconds }

    /// The board's longest sensor read, µs: FIFO_SRC, then `HB_ACCEL_MAX_SAMPLES`
    /// samples in one burst, each timed as an untimed read is (`UntimedRequest`):
    /// 114 + 1,024 µs. Under simavr the ELF took 112 + 1,010 µs, 23 µs apart.
    public static let longestSensorReadMicroseconds: Int64 = {
        // The address and registers do not change a read's length on the wire.
        func read(_ count: Int) -> Int64 { UntimedRequest.read(address: 0, register: 0, count: count).busMicroseconds }
        return read(1) + read(Int(HB_ACCEL_MAX_SAMPLES) * Int(HB_ACCEL_SAMPLE_LEN))
    }()

    /// When the link's next SYNC is due (host µs): a round's next exchange is due at
    /// once (`nil` there means now), else the next round.
    public var nextSyncAt: Int64 { clock.exchangesLeftInRound > 0 ? .min : clock.nextRoundAt }
    /// The next stamp the board runs after `now`, and the last sent (board µs).
    public func firstInFlight(after now: Int64) -> Int64? { ledger.firstInFlight(after: now) }
    public var lastStamp: Int64? { ledger.lastStamp }
    /// Commands refused, waiting to be taken back and go again.
    public var hasRetries: Bool { ledger.hasRetries }
    /// The clock fit's error bound, µs; nil before the first SYNC.
    public var clockErrorMicroseconds: Double? { clock.estimate?.errorMicroseconds }
    /// Acceleration: the board's own accelerometer when it has one and streams it (a
    /// sensor's measurement beats a model's), else the device's, where it has a source.
    public var telemetry: (any AccelerationTelemetry)? { sensor ?? transport.telemetry }
    /// Whether to stream the board's accelerometer, and how, when a session opens on a
    /// board that has one (HELLO_REPLY's capability bit); nil: leave it off.
    public var accelerometer: AccelerometerSettings? = AccelerometerSettings()
    /// The board's accelerometer stream of this session; nil when it has none (or it is off).
    public private(set) var sensor: LinkAccelerometer?
    /// The transport's diagnostics, where it keeps them.
    public var diagnostics: (any LinkDiagnostics)? { transport.diagnostics }
    /// Why the transport is gone, where it can say (`FrameTransport.lossReason`).
    public var lossReason: String? { transport.lossReason }
    /// The session's keep-alive as the board took it, µs.
    public var keepAliveMicroseconds: Int64 { Int64(helloReply?.keepAliveMilliseconds ?? openOptions.keepAliveMilliseconds) * 1000 }
    /// Untimed register access (protocol 1.1).
    public var canAccessRegisters: Bool { identity?.canAccessRegisters ?? false }
    /// REPLACE_FROM (protocol 1.1).
    public var canReplace: Bool { (identity?.protocolMinor ?? 0) >= 1 && (identity?.capabilities.contains(.replaceFrom) ?? false) }

    // MARK: opening a session

    /// Sends HELLO; `pump` takes the reply; `completeOpen` checks it.
    public func beginOpen(_ options: OpenOptions) throws(BridgeLinkError) {
        // Whatever the board said before this HELLO belongs to an earlier session;
        // only the link's coming and going still counts.
        for event in transport.poll() {
            switch event {
            case .disconnected: isConnected = false
            case .reappeared: isConnected = true
            case .frame: break
            }
        }
        encoder = HostFrameEncoder()
        identity = nil
        helloReply = nil
        status = BoardStatus()
        ledger.clear()
        frames.reset()
        delivery = Delivery(keepsItems: keepsDeliveredCommands)
        replacementAwaited = nil
        backoff = nil
        statusRequestMarks.removeAll()
        commandsSinceStatusRequest = 0
        inbox.removeAll()
        openOptions = options
        discardedBeforeHello = transport.diagnostics?.discardedBytes ?? 0
        awaitingHello = true
        try send(encoder.hello(
            keepAliveMilliseconds: options.keepAliveMilliseconds, maxDriveMilliseconds: options.maxDriveMilliseconds,
            protocolMinor: options.protocolMinor))
    }

    /// True from `beginOpen` until HELLO_REPLY has come.
    public var isAwaitingHello: Bool { awaitingHello }

    /// Checks HELLO_REPLY and starts the session: the board's clock anchored, a latched
    /// fault cleared (a session starts clean; the chip's own STATUS still tells what
    /// happened).
    @discardableResult
    public func completeOpen() throws(BridgeLinkError) -> BoardIdentity {
        guard let reply = helloReply else { throw helloUnanswered() }
        guard reply.protocolMajor == HostFrameEncoder.protocolMajor else {
            throw .protocolVersion(board: "\(reply.protocolMajor).\(reply.protocolMinor)")
        }
        let id = BoardIdentity(reply)
        identity = id
        clock.reset(anchor: reply.boardTime)
        statistics = Statistics()
        // CLEAR_FAULT, and a QUEUE_STATUS before anything stamped: its count of commands
        // run is where this session's count starts (`Delivery`).
        try send(encoder.clearFault() + encoder.queueStatusRequest())
        sensor = nil
        if let settings = accelerometer, reply.capabilitySet.contains(.accelerometer) {
            // Started with the session (a new HELLO stops it on the board); the board
            // reads its FIFO in the stream's gaps from here on.
            sensor = LinkAccelerometer(settings: AccelerationSettingsAnchor(settings: settings, anchor: reply.boardTime))
            try send(encoder.accelStream(rate: settings.rateCode, fullScale: settings.fullScaleCode))
        }
        return id
    }

    /// The error for a HELLO nobody answered: a board that sent bytes that were not
    /// frames runs something else.
    public func helloUnanswered() -> BridgeLinkError {
        if let noise = transport.diagnostics?.discardedBytes, noise > discardedBeforeHello {
            return .notHapbridge(
                "\(transport.summary) sent \(noise - discardedBeforeHello) bytes that were not hapbridge frames and no HELLO_REPLY: "
                    + "is it running hapbridge firmware? (`hapbridge flash` installs it)")
        }
        return .noAnswer("\(transport.summary) did not send HELLO_REPLY within \(replyTimeoutMicroseconds / 1000) ms")
    }

    /// HELLO, waited for: opens a session (the board re-probes its chip) and reads the
    /// board's identity.
    @discardableResult
    public func open(_ options: OpenOptions = OpenOptions(), isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError)
        -> BoardIdentity
    {
        try beginOpen(options)
        let deadline = hostNow + Int64(replyTimeoutMicroseconds)
        while awaitingHello {
            try checkInterruption()
            let now = hostNow
            guard now < deadline else { throw helloUnanswered() }
            try await pass(until: min(deadline, now + 200), isolation: isolation)
            collect()
        }
        return try completeOpen()
    }

    // MARK: what comes back

    /// Takes what the transport received: clock sync, I2C results, REPLACED and
    /// HELLO_REPLY are the link's own business; the rest is returned, oldest first.
    public func pump() -> [LinkEvent] {
        var out: [LinkEvent] = []
        for event in transport.poll() {
            switch event {
            case .disconnected:
                isConnected = false
                untimed.failAll(.device(.disconnected))
                out.append(.disconnected)
            case .reappeared:
                isConnected = true
                identity = nil
                helloReply = nil
                ledger.clear()
                frames.reset()
                untimed.failAll(.notOpen)
                out.append(.reappeared)
            case .frame(let bytes, let receivedAt):
                // A corrupt board frame carries nothing to act on; status requests ask again.
                guard let frame = try? BoardFrame(decoding: bytes) else { continue }
                take(frame, receivedAt: Int64(receivedAt), into: &out)
            }
        }
        return out
    }

    private func take(_ f: BoardFrame, receivedAt: Int64, into out: inout [LinkEvent]) {
        if f.type == .helloReply {
            nextBoardSequence = f.sequence &+ 1
        } else if let expected = nextBoardSequence {
            statistics.boardFramesLost += Int(f.sequence &- expected)
            nextBoardSequence = f.sequence &+ 1
        }
        if let r = f.syncReply {
            clock.received(token: r.token, boardReceived: r.receivedAt, hostReceived: receivedAt)
        } else if let q = f.queueStatus {
            // The reply to one of this session's requests accounts for every frame sent
            // before it; its counts settle what became of the commands (`Delivery`).
            if !awaitingHello, !accept(frames.answered(sequence: q.lastAcceptedSequence, type: .queueStatusRequest)).isEmpty {
                delivery.report(executed: q.commandsExecuted, holding: Int(q.capacity) - Int(q.freeSlots))
                ledger.boardRan(through: q.lastExecutedStamp)
            }
            let lag = status.take(q)
            let mark = statusRequestMarks.removeValue(forKey: q.lastAcceptedSequence)
            if backoff != nil {
                // The board caught up once its queue is at least half free: the host's
                // own count is good again.
                backoff = Int(q.freeSlots) * 2 >= Int(q.capacity) ? nil : (Int(q.freeSlots), mark ?? stampedFramesTotal)
            }
            out.append(.queueStatus(q, lag: lag))
        } else if let r = f.i2cResult {
            let result: Result<[UInt8], BridgeLinkError> =
                r.acknowledged ? .success(r.data) : .failure(.i2c(.addressNotAcknowledged(address: r.address, advice: transport.i2cNoAcknowledgeAdvice)))
            if untimed.answered(sequence: r.requestSequence, result) { statistics.untimedAnswered += 1 }
        } else if let n = f.nak {
            status.refused(n.reason)
            // Which frame it names, and what that says of those before it (`SentFrames`).
            var refusedCommand: StampedCommand?
            if !awaitingHello {
                for (frame, verdict) in frames.refused(n) {
                    switch verdict {
                    case .accepted: acceptFrame(frame)
                    case .refused, .lost:
                        // A command still to be sent goes again, from its stamp on; one
                        // taken back already (a change, a stop) does not.
                        guard frame.command != nil, let c = ledger.refused(frame: frame.index) else { continue }
                        if frame.sequence == n.sequence { refusedCommand = c }
                    }
                }
            }
            if let request = untimed.request(forSequence: n.sequence) {
                let error: BridgeLinkError =
                    n.reason == .unknownType && identity != nil
                    ? .firmwareTooOld(identity?.firmwareVersion ?? "?", protocolVersion: identity?.protocolVersion ?? "?")
                    : .rejected(n.reason, what: request.description)
                untimed.answered(sequence: n.sequence, .failure(error))
                return
            }
            out.append(.refused(n, command: refusedCommand))
        } else if let r = f.replaced {
            if !awaitingHello, !accept(frames.answered(sequence: r.requestSequence, type: .replaceFrom)).isEmpty {
                delivery.replace(newest: Int(r.discardedCommands))
            }
            if r.requestSequence == replacementAwaited {
                replacementAwaited = nil
                ledger.settleTakeBack(discarded: Int(r.discardedCommands))
                backoff = (Int(r.freeSlots), stampedFramesTotal)
            }
        } else if let r = f.helloReply {
            if awaitingHello {
                helloReply = r
                awaitingHello = false
                _ = frames.answered(sequence: 0, type: .hello)
            }
        } else if let a = f.ack {
            if !awaitingHello { accept(frames.answered(sequence: a.sequence, type: a.type)) }
            out.append(.acknowledged(a))
        } else if let s = f.stopped {
            // The board flushed its queue (the next QUEUE_STATUS counts what it flushed).
            ledger.clear()
            replacementAwaited = nil
            backoff = nil
            out.append(.stopped(s))
        } else if let c = f.chipStatus {
            out.append(.chipStatus(c))
        } else if let a = f.accelSamples {
            sensor?.take(a, boardFramesLost: statistics.boardFramesLost)
        }
    }

    // MARK: sending

    /// Hands frames to the transport (the one place a frame leaves), noting each in
    /// `frames`; `stamped`: the commands its command frames carry, in order.
    private func send(_ bytes: [UInt8], stamped: [StampedCommand] = []) throws(BridgeLinkError) {
        do { try transport.send(bytes) } catch { throw .device(error) }
        frames.sent(bytes, stamped: stamped)
        let now = hostNow
        if let last = lastSentAt, now - last >= keepAliveMicroseconds * 3 / 4 { lastSilentSpellEnd = now }
        lastSentAt = now
    }

    /// A SYNC exchange, started now.
    public func sendSync() throws(BridgeLinkError) {
        let token = clock.startExchange(hostNow: hostNow)
        try send(encoder.sync(token: token))
    }

    /// The periodic SYNC rounds: one exchange per call while a round is on.
    public func syncIfDue(interval: Int64, exchanges: Int) throws(BridgeLinkError) {
        if clock.exchangeDue(hostNow: hostNow, interval: interval, exchanges: exchanges) { try sendSync() }
    }

    /// True while a SYNC sent awaits its reply.
    public var syncsAwaited: Bool { clock.hasExchangesInFlight }

    /// Ends a SYNC round: its fastest exchange joins the fit.
    public func closeSyncRound() { clock.closeRound() }

    /// QUEUE_STATUS (it doubles as the keep-alive).
    public func requestQueueStatus() throws(BridgeLinkError) {
        try send(queueStatusRequest())
    }

    /// A QUEUE_STATUS request's frame, its mark noted.
    private func queueStatusRequest() -> [UInt8] {
        statusRequestMarks[encoder.nextSequence] = stampedFramesTotal
        commandsSinceStatusRequest = 0
        return encoder.queueStatusRequest()
    }

    /// Forgets the last QUEUE_STATUS, so `status.last` is the reply to the next request.
    public func forgetQueueStatus() { status.awaitFreshReport() }

    public func requestChipStatus() throws(BridgeLinkError) { try send(encoder.chipStatusRequest()) }

    public func sendKeepAlive() throws(BridgeLinkError) { try send(encoder.keepAlive()) }

    /// STOP_ALL: the actuator stops and the board's queue empties at once; nothing
    /// stamped is left to send again.
    ///
    /// A QUEUE_STATUS request goes in the same transfer: its reply, built with the queue
    /// just emptied, says how many commands ran before the stop, so `delivery` knows
    /// which the stop flushed before anything newer runs.
    public func sendStopAll() throws(BridgeLinkError) {
        ledger.clear()
        replacementAwaited = nil
        backoff = nil
        let stop = encoder.stopAll()
        try send(stop + queueStatusRequest())
    }

    /// The command frames among `accepted` were taken into the board's queue.
    @discardableResult
    private func accept(_ accepted: [SentFrames.Frame]) -> [SentFrames.Frame] {
        for frame in accepted { acceptFrame(frame) }
        return accepted
    }

    private func acceptFrame(_ frame: SentFrames.Frame) {
        guard let command = frame.command else { return }
        delivery.accept(command)
        ledger.accepted(frame: frame.index)
    }

    /// How many stamped commands may go now: the board's queue as the host counts it
    /// (two slots kept free, for a count without a reply), bounded after a refusal by
    /// the board's own count, and by the frames still unaccounted for (each answer
    /// must name one frame: `SentFrames.commandRoom`).
    public func room(boardNow: Int64) -> Int {
        guard let capacity = identity?.queueCapacity, replacementAwaited == nil else { return 0 }
        var free = min(capacity - 2 - ledger.inFlight(after: boardNow), frames.commandRoom)
        if let b = backoff { free = min(free, b.free - 2 - (stampedFramesTotal - b.mark)) }
        return max(0, free)
    }

    /// Sends stamped commands, as many as there is room for, all in one transfer (the
    /// link's per-transfer cost is paid once): first what the board refused and the
    /// link took back, then `commands` from the front. Returns how many of `commands`
    /// went.
    public func sendStamped(_ commands: ArraySlice<StampedCommand>, boardNow: Int64) throws(BridgeLinkError) -> Int {
        if let from = ledger.takeBackRefused() {
            // Take back the refused command and everything after it, then send that run
            // again in order (the board queues stamps in order only).
            replacementAwaited = encoder.nextSequence
            try send(encoder.replaceFrom(at: BoardClock.stamp(from)))
        }
        let room = room(boardNow: boardNow)
        guard room > 0 else { return 0 }
        let onTimeFrom = boardNow + clock.oneWayMicroseconds
        var transfer: [UInt8] = []
        // One access to each piece of state for the whole run, not one per command
        // (a class's stored properties are checked for exclusive access at run time).
        let retry = ledger.takeRetry(room)
        let fresh = commands.prefix(room - retry.count)
        let count = retry.count + fresh.count
        guard count > 0 else { return 0 }
        // The transfer's frames are the next the link notes (`send`, nothing between).
        let late = Self.encode(
            retry, fresh, onTimeFrom: onTimeFrom, firstFrame: frames.nextIndex, into: &transfer, ledger: &ledger, encoder: &encoder)
        stampedFramesTotal += count
        commandsSinceStatusRequest += count
        // Its reply accounts for these commands, taken in without a word (`SentFrames`).
        if commandsSinceStatusRequest >= Self.commandsPerStatusRequest { transfer += queueStatusRequest() }
        try send(transfer, stamped: Array(retry) + Array(fresh))
        statistics.resent += retry.count
        statistics.lateAfterRefusal += late.resent
        statistics.stampedSent += fresh.count
        statistics.late += late.fresh
        statistics.queueHighWater = max(statistics.queueHighWater, ledger.inFlight(after: boardNow))
        return fresh.count
    }

    /// Encodes commands sent again, then new ones, into one transfer, each recorded
    /// under the frame it goes in: how many of each leave too late to be on time.
    private static func encode(
        _ retry: ArraySlice<StampedCommand>, _ fresh: ArraySlice<StampedCommand>, onTimeFrom: Int64, firstFrame: Int,
        into transfer: inout [UInt8], ledger: inout StampedLedger, encoder: inout HostFrameEncoder
    ) -> (resent: Int, fresh: Int) {
        var frame = firstFrame
        func put(_ c: StampedCommand) -> Bool {
            let stamp = BoardClock.stamp(c.time)
            ledger.record(frame: frame, c)
            frame += 1
            switch c.kind {
            case .rtp(let a): transfer += encoder.rtp(at: stamp, amplitude: a)
            case .register(let r, let v): transfer += encoder.registerWrite(at: stamp, register: r, value: v)
            case .stop: transfer += encoder.stop(at: stamp)
            }
            return c.time < onTimeFrom
        }
        var late = (resent: 0, fresh: 0)
        for c in retry where put(c) { late.resent += 1 }
        for c in fresh where put(c) { late.fresh += 1 }
        return late
    }

    /// Takes back what the board holds from `time` on (REPLACE_FROM), for a client that
    /// changed its mind; false when nothing sent lies there.
    @discardableResult
    public func takeBack(from time: Int64) throws(BridgeLinkError) -> Bool {
        let held = ledger.holds(from: time)
        statistics.withdrawn += ledger.takeBack(from: time)
        guard held else { return false }
        try send(encoder.replaceFrom(at: BoardClock.stamp(time)))
        return true
    }

    /// True when something sent and not yet due lies at or after `time`.
    public func holdsStamped(from time: Int64) -> Bool { ledger.holds(from: time) }


    // MARK: untimed register access

    /// Queues an untimed transaction; `sendUntimed` sends it, `pump` takes its
    /// answer, `takeResult` hands it over. A request that cannot be encoded (a count
    /// outside 1...32, an address above 0x7F) is refused here.
    public func enqueue(_ request: UntimedRequest) throws(BridgeLinkError) -> UntimedQueue.Ticket {
        var probe = encoder
        do { _ = try request.encode(&probe) } catch { throw .invalidRequest(error.description) }
        if case .write = request, identity == nil { throw .notOpen }
        if identity != nil, !canAccessRegisters, let identity {
            throw .firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion)
        }
        return untimed.enqueue(request, at: hostNow)
    }

    public func takeResult(_ ticket: UntimedQueue.Ticket) -> Result<[UInt8], BridgeLinkError>? { untimed.take(ticket) }

    public func cancel(_ ticket: UntimedQueue.Ticket) { untimed.cancel(ticket) }

    /// Sends the next untimed request, one in flight at a time. The board runs a
    /// read in the stamped stream's next gap, where no stamped command falls due
    /// before it ends (firmware core: `HB_UNTIMED_*` in core.h; PROTOCOL.md, "Untimed
    /// I2C"): only the board knows when a frame arrives and what its bus is doing,
    /// to the microsecond; a host guessing at a USB link's delivery cannot.
    public func sendUntimed() {
        guard untimed.next != nil, let (_, request) = untimed.next else { return }
        let sequence = encoder.nextSequence
        untimed.sent(sequence: sequence, at: hostNow)
        let frame: [UInt8]
        do { frame = try request.encode(&encoder) } catch {
            untimed.answered(sequence: sequence, .failure(.invalidRequest(error.description)))
            return
        }
        do { try send(frame) } catch { untimed.answered(sequence: sequence, .failure(error)) }
    }

    /// One untimed transaction, waited for (a bench procedure's register access).
    public func perform(_ request: UntimedRequest, isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError) -> [UInt8] {
        guard identity != nil else { throw .notOpen }
        let ticket = try enqueue(request)
        let deadline = hostNow + Int64(replyTimeoutMicroseconds)
        while true {
            sendUntimed()
            collect()
            if let result = untimed.take(ticket) { return try result.get() }
            do { try checkInterruption() } catch {
                untimed.cancel(ticket)
                throw error
            }
            let now = hostNow
            guard now < deadline else {
                untimed.cancel(ticket)
                throw .noAnswer("\(transport.summary) did not answer the \(request.description) within \(replyTimeoutMicroseconds / 1000) ms")
            }
            try keepAliveIfDue(now: now)
            // 200 µs apart: below a USB frame, and a virtual board steps that far.
            try await pass(until: min(deadline, now + 200), isolation: isolation)
        }
    }

    /// Reads `count` consecutive registers of the device at `address`.
    public func read(address: UInt8, register: UInt8, count: Int, isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError)
        -> [UInt8]
    {
        try requireRegisterAccess()
        return try await perform(.read(address: address, register: register, count: count), isolation: isolation)
    }

    /// Writes consecutive registers of the device at `address` (one auto-increment write).
    public func write(address: UInt8, register: UInt8, bytes: [UInt8], isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError) {
        try requireRegisterAccess()
        _ = try await perform(.write(address: address, register: register, bytes: bytes), isolation: isolation)
    }

    /// Lets `microseconds` of board time pass, keeping the session alive.
    public func wait(microseconds: UInt64, isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError) {
        let end = hostNow + Int64(clamping: microseconds)
        while true {
            let now = hostNow
            if now >= end { return }
            try checkInterruption()
            try keepAliveIfDue(now: now)
            var next = min(end, (lastSentAt ?? now) + keepAliveMicroseconds / 4)
            if interruption != nil { next = min(next, now + Int64(Self.interruptionCheckMicroseconds)) }
            try await pass(until: max(next, now + 1), isolation: isolation)
            collect()
        }
    }

    /// Stops the actuator and flushes the board's queue (STOP_ALL), waiting for its
    /// ACK, so a bench command never leaves the chip driving. Not cut short by
    /// `interruption`: it is what an interruption ends with.
    public func stopAll(isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError) {
        interruption = nil
        let sequence = encoder.nextSequence
        try sendStopAll()
        _ = try await awaitEvent(what: "ACK of STOP_ALL", isolation: isolation) {
            if case .acknowledged(let a) = $0 { return a.sequence == sequence }
            return false
        }
    }

    /// ENTER_BOOTLOADER: the board stops the actuator, acknowledges and resets into its
    /// bootloader, which enumerates on the same USB port. Returns that port and the
    /// bootloader the board named, for `flash` to find it there.
    public func enterBootloader(isolation: isolated (any Actor)? = #isolation) async throws(BridgeLinkError) -> BootloaderHandoff {
        let sequence = encoder.nextSequence
        let bootloader = identity?.bootloader
        ledger.clear()
        try send(encoder.enterBootloader())
        do {
            _ = try await awaitEvent(what: "ACK of ENTER_BOOTLOADER", isolation: isolation) {
                switch $0 {
                case .acknowledged(let a): a.sequence == sequence
                // A board that resets before its ACK is out goes all the same.
                case .disconnected: true
                default: false
                }
            }
        } catch .device(let e) where e.kind == .disconnected {}
        identity = nil
        return BootloaderHandoff(port: address, bootloader: bootloader)
    }

    /// The board's I2C master as a driver's bus (`DRV2605Driver(bus:)`), for a bench
    /// procedure that owns this link.
    public var i2cBus: LinkI2CBus { LinkI2CBus(link: self) }

    /// Lets go of the transport (a USB board's interface is released). Idempotent.
    public func close() {
        untimed.failAll(.device(.disconnected))
        transport.close()
    }

    // MARK: waiting (the `async` side)

    private func checkInterruption() throws(BridgeLinkError) {
        if let reason = interruption?() { throw .interrupted(reason) }
    }

    private func requireRegisterAccess() throws(BridgeLinkError) {
        guard let identity else { throw .notOpen }
        guard identity.canAccessRegisters else { throw .firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion) }
    }

    private func keepAliveIfDue(now: Int64) throws(BridgeLinkError) {
        if now - (lastSentAt ?? now) >= keepAliveMicroseconds / 4 { try sendKeepAlive() }
    }

    private func pass(until host: Int64, isolation: isolated (any Actor)?) async throws(BridgeLinkError) {
        do { try await transport.wait(untilHostMicroseconds: UInt64(max(0, host)), isolation: isolation) } catch { throw .device(error) }
    }

    /// Pumps, keeping what the owner would act on for `awaitEvent`.
    private func collect() {
        for event in pump() {
            if case .reappeared = event { identity = nil }
            inbox.append(event)
        }
        if inbox.count > 256 { inbox.removeFirst(inbox.count - 256) }
    }

    private func awaitEvent(what: String, isolation: isolated (any Actor)?, _ matches: (LinkEvent) -> Bool) async throws(BridgeLinkError) -> LinkEvent {
        let deadline = hostNow + Int64(replyTimeoutMicroseconds)
        while true {
            collect()
            if let i = inbox.firstIndex(where: matches) { return inbox.remove(at: i) }
            try checkInterruption()
            let now = hostNow
            guard now < deadline else { throw .noAnswer("\(transport.summary) did not send \(what) within \(replyTimeoutMicroseconds / 1000) ms") }
            try await pass(until: min(deadline, now + 200), isolation: isolation)
        }
    }
}

/// The board's I2C master as a driver's bus: register reads and writes through the
/// link's untimed frames, waits that keep the session alive.
public final class LinkI2CBus: I2CBus {
    let link: BridgeLink
    init(link: BridgeLink) { self.link = link }

    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {
        do { try await link.write(address: address, register: register, bytes: bytes, isolation: nil) } catch { throw error.i2cError }
    }

    public func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] {
        do { return try await link.read(address: address, register: register, count: count, isolation: nil) } catch { throw error.i2cError }
    }

    public func wait(microseconds: UInt64) async throws(I2CError) {
        do { try await link.wait(microseconds: microseconds, isolation: nil) } catch { throw error.i2cError }
    }
}
