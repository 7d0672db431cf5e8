import Actuators
import BridgeLink
import BridgeProtocol
import DRV2605
import DeviceInterface
import Dispatch
import HapticCompilation
import Haptics
import Logging
import RealTime

/// Core Haptics' engine on a bridge board: lifecycle, players, the device clock and
/// the look-ahead scheduler.
///
/// **The board.** The engine owns a `BridgeLink` (`init(link:)`): the link does HELLO,
/// clock sync, queue status and NAKs; the engine streams its stamped commands through
/// it, and other tasks reach the board's I2C bus through the engine (`i2cBus`), the
/// link putting their transactions in the stream's gaps.
///
/// **Concurrency.** An actor: its state, its link (not `Sendable`, owned here)
/// and the scheduler are touched only on its executor. Client callbacks (stopped,
/// reset, completions, finished) are queued in order on one serial `DispatchQueue`,
/// never the caller's context and never the engine's own, so they may call back into
/// the engine (with `await`) freely.
///
/// **Time.** `currentTime` is the board's clock (unwrapped to 64 bits, in seconds),
/// estimated on the host through clock sync. Every `atTime` is on it; 0 means now.
///
/// **Driving.** `.automatic` runs a service task while the engine is started (a
/// virtual-time device then runs as fast as it can); `.manual` runs nothing until
/// `advance(bySeconds:)`, so tests are deterministic and never sleep.
public actor HapticEngine {
    public struct Options: Sendable {
        public enum Driving: Sendable, Equatable { case automatic, manual }
        public var driving: Driving
        /// How far ahead of the board's clock commands are streamed. Stop, seek and
        /// parameter changes take effect within this window.
        public var lookAheadMicroseconds: Int64
        /// How far ahead to compile on a board that can replace what it has queued
        /// (protocol 1.1): as much of it is sent as the board's queue holds, so host
        /// stalls shorter than the queue's span cost nothing, and a change still lands
        /// at now + lead (REPLACE_FROM takes back what follows it).
        public var deepLookAheadMicroseconds: Int64 = 250_000
        /// How often the scheduler wakes (generation, sending, status polling).
        public var servicePeriodMicroseconds: Int64
        /// The control rate: one mixing/compilation step per this many µs.
        public var controlStepMicroseconds: Int64
        public var keepAliveMilliseconds: UInt16
        /// The board's continuous-drive safety limit (HELLO); by default the most a board
        /// grants (`HostFrameEncoder.maximumMaxDriveMilliseconds`), since a pattern may
        /// drive that long without a pause.
        public var maxDriveMilliseconds: UInt16
        /// Auto-shutdown: idle this long → standby. Core Haptics: "approximately two minutes".
        public var idleTimeoutMicroseconds: Int64
        public var syncIntervalMicroseconds: Int64
        public var syncExchangesPerRound: Int
        public var queueStatusIntervalMicroseconds: Int64
        /// How long `start()` waits for HELLO_REPLY, and then for the first clock-sync
        /// round: 2 s. A board answers within milliseconds; a loaded host (a CI runner
        /// beside a test suite, an emulated board in another process) can take a few
        /// hundred, and a start that gives up then is a false failure. It also bounds the
        /// link latency the engine accepts (`maximumLinkLatencyMicroseconds`).
        public var startTimeoutMicroseconds: Int64
        /// Added to the link delay and clock error when stamping "now": room for the
        /// host's own work between computing a stamp and the frame leaving (the same
        /// call, ~50 µs at p99 on a 2-core VM). Larger values buy fewer late first
        /// commands on a loaded host at the cost of start latency, one for one.
        public var leadMarginMicroseconds: Int64
        /// What "as soon as possible" means for a start (`start(atTime: 0)` and any
        /// time already past). See `ImmediateStart`.
        public var immediateStart: ImmediateStart = .soonest
        /// How long the board takes to take in one frame of a batch (the ATmega32U4
        /// port: ~93 µs, measured under simavr; see Firmware/README.md). `start()`
        /// stamps its chip setup (~10 frames) this much later per frame than "now",
        /// so the whole block is queued by its stamp and runs back to back on time.
        public var frameIntakeMicroseconds: Int64
        /// The protocol minor offered in HELLO (the board answers with the lower of its own
        /// and this). Lower it to drive a board as a 1.0 host would: no register access,
        /// no REPLACE_FROM, the short look-ahead.
        public var protocolMinor: UInt8 = HostFrameEncoder.protocolMinor
        /// Which events a pattern's HapticSharpnessControl reaches when its player is
        /// made (`RenderOptions.SharpnessControlScope`; `play --sharpness-control`).
        public var sharpnessControl: RenderOptions.SharpnessControlScope = .continuousEvents
        /// SCHED_FIFO priority asked for the service thread on a real clock (granted to
        /// root or with CAP_SYS_NICE / an rtprio limit; otherwise normal priority, said
        /// once in `serviceThreadScheduling`); nil never asks.
        public var serviceThreadPriority: Int32? = 20
        /// Auto-calibration results for this board and actuator (stored by `hapbridge
        /// calibrate`): an LRA then plays in closed loop, the chip tracking its
        /// resonance (see `DriveTarget`); nil plays open loop.
        public var calibration: AutoCalibrationResult?
        /// Where the calibration comes from when `calibration` is nil: asked at each
        /// `start()` with the serial the board stated in HELLO_REPLY (nil: it stated
        /// none), so a calibration is found by the identity the board gives through its
        /// link, whatever the transport (`StoredDrive.lookUp` in Bench is the one lookup).
        public var storedCalibration: (@Sendable (_ boardSerial: String?) -> AutoCalibrationResult?)?
        /// Where the engine says what it does (start, stops and why, the device going and
        /// coming back, changes taken back from the board); quiet unless its level says.
        public var logger = Logger(label: "hapbridge.engine")
        /// How often a device that went away is looked at again (automatic driving).
        public var reappearancePollMicroseconds: Int64 = 50_000
        /// Keep every command sent, with its stamp (`sentCommands`): what a plot of the
        /// drive shows on any device. Off by default (it grows with the pattern).
        public var keepsSentCommandLog = false
        /// The least board time between two stamped writes (the compiler's pacing,
        /// `DriveCompiler` rule 4). nil: the board's own intake, as its HELLO_REPLY
        /// states it, or `BoardIntake.writeSpacingMicroseconds` for a board that does
        /// not. 0 paces nothing: a dense pattern then outruns a real board.
        public var writeSpacingMicroseconds: Int64? = nil
        /// A board reporting (QUEUE_STATUS) that it ran a command this long after its
        /// stamp, which the host sent in time, has fallen behind its own queue: the
        /// engine stops (`StoppedReason.boardFellBehind`) rather than play the pattern
        /// ever later until the link backs up and the board's host-silence stop says
        /// something untrue. Far above a USB frame or an untimed I2C transaction (~1 ms),
        /// well below the keep-alive (`HostFrameEncoder.defaultKeepAliveMilliseconds`).
        public var overloadLagMicroseconds: Int64 = 50_000

        public init(
            driving: Driving = .automatic, lookAheadMicroseconds: Int64 = 20_000, servicePeriodMicroseconds: Int64 = 2_000,
            controlStepMicroseconds: Int64 = 1_000, keepAliveMilliseconds: UInt16 = HostFrameEncoder.defaultKeepAliveMilliseconds, maxDriveMilliseconds: UInt16 = HostFrameEncoder.maximumMaxDriveMilliseconds,
            idleTimeoutMicroseconds: Int64 = 120_000_000, syncIntervalMicroseconds: Int64 = 250_000, syncExchangesPerRound: Int = 4,
            queueStatusIntervalMicroseconds: Int64 = 20_000, startTimeoutMicroseconds: Int64 = Int64(BridgeLink.defaultReplyTimeoutMicroseconds),
            leadMarginMicroseconds: Int64 = 50, frameIntakeMicroseconds: Int64 = 100
        ) {
            self.leadMarginMicroseconds = leadMarginMicroseconds
            self.frameIntakeMicroseconds = frameIntakeMicroseconds
            self.driving = driving
            self.lookAheadMicroseconds = lookAheadMicroseconds
            self.servicePeriodMicroseconds = servicePeriodMicroseconds
            self.controlStepMicroseconds = controlStepMicroseconds
            self.keepAliveMilliseconds = keepAliveMilliseconds
            self.maxDriveMilliseconds = maxDriveMilliseconds
            self.idleTimeoutMicroseconds = idleTimeoutMicroseconds
            self.syncIntervalMicroseconds = syncIntervalMicroseconds
            self.syncExchangesPerRound = syncExchangesPerRound
            self.queueStatusIntervalMicroseconds = queueStatusIntervalMicroseconds
            self.startTimeoutMicroseconds = startTimeoutMicroseconds
        }
    }

    /// An immediate start's first stamp. The lead (`lead()`) is measured from the
    /// link's fastest exchange; on a link whose delivery varies by more than the board
    /// tolerates (`HB_LATE_TOLERANCE_US`, 100 µs: USB with a busy host, an emulated
    /// board), some frames reach the board after that.
    public enum ImmediateStart: Sendable, Equatable {
        /// Now + lead: the least latency, as Core Haptics' `CHHapticTimeImmediate` asks.
        /// A start whose first frames arrive late runs its first commands on arrival,
        /// bunched (the board counts them as underruns); the rest keep their stamps.
        case soonest
        /// Later by the link's recent delivery spread (`BridgeLink.startAnchorMicroseconds`),
        /// so every command of the pattern, its first included, runs on its stamp: for
        /// measurements that need the pattern's own timing from its first command. Over
        /// emulated USB this costs ~1.3 ms of start latency at p50 (`scripts/bench`).
        case keepingPatternTiming
    }

    enum State: Sendable, Equatable { case stopped, running, standby }

    /// The board's link: the one sender of frames on the device.
    let link: BridgeLink
    /// The one thread every job of this engine runs on (see `serviceThreadScheduling`).
    nonisolated let executor: RealTimeExecutor
    /// The same link, for `deinit` only. Sound without isolation: a deinit runs
    /// when no reference to the engine is left (the service task holds only a weak
    /// one), so nothing else can be using the link at that moment.
    private nonisolated(unsafe) let linkAtTeardown: BridgeLink
    public nonisolated let profile: ActuatorProfile
    public nonisolated let options: Options
    /// The one serial executor every client callback runs on; tagged so a handler
    /// (or a test) can tell it is on it.
    nonisolated let callbacks: DispatchQueue = {
        let queue = DispatchQueue(label: "hapbridge.engine.callbacks")
        queue.setSpecific(key: HapticEngine.callbackQueueKey, value: ObjectIdentifier(queue))
        return queue
    }()
    static let callbackQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// True on this engine's callback queue (for handlers that want to assert it).
    public nonisolated var isOnCallbackQueue: Bool {
        DispatchQueue.getSpecific(key: Self.callbackQueueKey) == ObjectIdentifier(callbacks)
    }

    var state = State.stopped
    var everStarted = false
    var connected = true
    var variant: DeviceVariant?
    var target: DriveTarget?
    var compiler: DriveCompiler?
    /// The look-ahead scheduler's state between service passes (`SchedulerState`).
    var scheduler = SchedulerState()
    /// The service loop's current sleep on a real clock (`sleepUntilServiceDue`).
    var serviceWake: ServiceWake?

    /// The players, their sessions, completions and ends not yet reached.
    var table = PlayerTable()
    var players: [Int: PlayerPlayback] {
        get { table.players }
        _modify { yield &table.players }
    }
    /// How many players the engine holds (released ones go once silent).
    public var playerCount: Int { table.count }
    var finishedHandler: (@Sendable (HapticEngineError?) -> FinishedAction)?

    var stoppedHandler: (@Sendable (StoppedReason) -> Void)?
    var resetHandler: (@Sendable () -> Void)?
    public internal(set) var isAutoShutdownEnabled = false
    public internal(set) var isMutedForHaptics = false

    /// The engine's own figures; `statistics` adds the link's.
    var ownStatistics = StreamStatistics()
    var serviceTask: Task<Void, Never>?
    /// Looks for a device that went away to come back (automatic driving).
    var watchTask: Task<Void, Never>?
    /// An engine on a board's link, which it owns from now on (it opens the session
    /// at `start()`).
    public init(link: sending BridgeLink, actuator: ActuatorProfile, options: Options = Options()) {
        // Real time only for a real clock serviced automatically: on virtual time the
        // service loop runs flat out, which a SCHED_FIFO thread must never do.
        let realTime = link.isRealTime && options.driving == .automatic
        executor = RealTimeExecutor(name: "hapbridge.engine", priority: realTime ? options.serviceThreadPriority : nil)
        self.link = link
        self.linkAtTeardown = link
        self.profile = actuator
        self.options = options
    }

    /// The last thing a running engine does is tell the board to stop. Not an
    /// `isolated deinit`: Swift 6.3 fails release builds with -enable-testing
    /// ("circular reference") when another module calls this actor's init.
    deinit {
        defer { executor.shutdown() }
        serviceTask?.cancel()
        watchTask?.cancel()
        guard state != .stopped else { return }
        // The board must not keep driving for an engine that no longer exists.
        try? linkAtTeardown.sendStopAll()
        if let handler = stoppedHandler { callbacks.async { handler(.engineDestroyed) } }
    }

    /// Every job of the engine (client calls, the service loop) runs on its own thread,
    /// real-time where permitted when it services a real clock: the look-ahead scheduler
    /// must wake on time even while the host is busy.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// How the engine's thread is scheduled; `.notice` is the line to show a user when
    /// real time was refused.
    public nonisolated var serviceThreadScheduling: ThreadScheduling { executor.scheduling }

    // MARK: handlers and settings

    public func setStoppedHandler(_ handler: (@Sendable (StoppedReason) -> Void)?) { stoppedHandler = handler }
    public func setResetHandler(_ handler: (@Sendable () -> Void)?) { resetHandler = handler }
    public func setAutoShutdownEnabled(_ enabled: Bool) {
        isAutoShutdownEnabled = enabled
        wakeServiceLoop()
    }
    public func setMutedForHaptics(_ muted: Bool) { isMutedForHaptics = muted }

    /// Calls `finishedHandler` once every player has finished; it says whether to
    /// stop the engine (then the stopped handler gets `.notifyWhenFinished`).
    public func notifyWhenPlayersFinished(_ handler: @escaping @Sendable (HapticEngineError?) -> FinishedAction) {
        finishedHandler = handler
        wakeServiceLoop()
    }

    /// Waits until every callback queued so far has run (tests, orderly shutdown).
    public nonisolated func callbacksDelivered() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in callbacks.async { c.resume() } }
    }

    func deliver(_ body: @escaping @Sendable () -> Void) { callbacks.async(execute: body) }

    // MARK: state

    public var isRunning: Bool { state == .running }
    public var isInStandby: Bool { state == .standby }

    /// The engine clock in seconds: the board's time as the host estimates it now.
    public var currentTime: Double { Double(boardNow() ?? 0) / 1e6 }

    public var capabilities: Capabilities {
        Capabilities(
            supportsHaptics: link.helloReply.map { $0.deviceID != 0xFF } ?? true, supportsAudio: false, chip: variant,
            actuator: profile.displayName, intensityRange: 0...1, sharpnessRange: 0...1, intensityControlRange: 0...1,
            sharpnessControlRange: -1...1, playbackRateRange: 0.01...100, sharpnessShaping: target?.shaping, driveLoop: target?.loop)
    }

    /// Commands sent to the board, in stamp order (engine µs), when
    /// `Options.keepsSentCommandLog` is on; commands a change replaced are not in it.
    public internal(set) var sentCommands: [TimedCommand] = []

    /// The commands the board ran, in the order it ran them, by its own count
    /// (`Delivery`), when `Options.keepsSentCommandLog` is on: what the chip got. Complete
    /// once `settleDelivery()` has returned true.
    public var ranCommands: [TimedCommand] { link.delivery.ranCommands.map(Self.timed) }

    /// The device's acceleration since a board time (µs), where it has a source of it
    /// (a simulated sled, an accelerometer); nil when it has none.
    public func acceleration(since boardMicroseconds: UInt64) -> [AccelerationSample]? {
        link.telemetry?.acceleration(since: boardMicroseconds)
    }

    /// Runs a closure against the device (tests reach the simulated board this way).
    public func withDevice<T: Sendable>(_ body: (any FrameTransport) throws -> T) rethrows -> T { try body(link.transport) }

    /// Runs a closure against the link (its statistics, the board's status and refusals).
    public func withLink<T: Sendable>(_ body: (BridgeLink) throws -> T) rethrows -> T { try body(link) }

    /// Streaming figures since the engine started: the engine's own and the link's.
    public var statistics: StreamStatistics {
        var s = ownStatistics
        let l = link.statistics
        s.commandsSent = l.stampedSent
        s.lateCommands = l.late + l.lateAfterRefusal
        s.resentCommands = l.resent
        let d = link.delivery
        s.commandsRun = d.isKnown ? d.ran : nil
        s.commandsFlushed = d.flushed
        s.commandsQueued = d.queued
        s.commandsWithdrawn = l.withdrawn
        s.boardFramesLost = l.boardFramesLost
        s.lateAfterRefusal = l.lateAfterRefusal
        s.queueHighWater = l.queueHighWater
        s.untimedAnswered = l.untimedAnswered
        s.boardUnderruns = link.status.underruns
        s.boardLagHighWater = link.status.lagHighWater
        s.refusals = link.status.refusals
        s.rejectedFrames = link.status.refusals.total
        s.clock = link.clock.estimate
        s.minimumRoundTripMicroseconds = link.clock.minimumRoundTrip
        s.recentMaximumRoundTripMicroseconds = link.clock.recentMaximumRoundTrip
        return s
    }

    func boardNow() -> Int64? { link.boardTime(atHost: host()) }

    /// The earliest engine time a new command can still reach the board for: the
    /// link's one-way delay plus the clock's error plus a margin, from now.
    /// How far ahead of the board's clock "now" is stamped: the clock fit's error, the
    /// link's one-way delay, the host's own margin, and the board's latch lead (a
    /// stamp is when the chip takes the command; the board starts its writes that
    /// long before, HELLO_REPLY `[42..43]`).
    /// While the board streams its accelerometer, a frame may reach it in the middle of
    /// a sensor read, which holds its intake that long (`BridgeLink.intakeHoldMicroseconds`).
    func lead() -> Int64 {
        Int64((link.clockErrorMicroseconds ?? 0).rounded(.up)) + oneWayMicroseconds + options.leadMarginMicroseconds
            + Int64(link.helloReply?.latchLeadMicroseconds ?? 0) + link.intakeHoldMicroseconds
    }

    var oneWayMicroseconds: Int64 { link.oneWayMicroseconds }
}
