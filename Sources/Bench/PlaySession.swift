import Actuators
import DeviceInterface
import Devices
import Foundation
import HapticCompilation
import HapticEngine
import Haptics
import Logging

/// One pattern played on one device, start to end: the device opened, the actuator
/// and the calibration stored for it, the engine started, the pattern's player, its
/// progress, why it stopped, what was sent and the acceleration it made.
/// `hapbridge play` is this type plus argument parsing, printing and signals; a HIL
/// script or a user's package uses it the same way:
///
///     let session = try PlaySession(address: .simulated, actuator: profile)
///     try await session.start(pattern)
///     let result = try await session.run { progress in print(progress.position) }
///     print(result.statistics.lateCommands, result.stopReason ?? "played to the end")
///
/// `stop(reason:)` may be called from any thread (a signal's reaction): it stops the
/// engine at once (STOP_ALL flushes the board's queue and puts the chip in standby).
public final class PlaySession: Sendable {
    /// Acceleration kept from before the play's first stamp, µs: the sled at rest
    /// before the drive (a few of a bench accelerometer's 744 µs sample periods).
    public static let preTriggerMicroseconds: UInt64 = 5_000
    /// How much further back a sensor's recording may start, to begin at a zero crossing
    /// of the sled at rest (`restingStart`).
    public static let longestPreTriggerMicroseconds: UInt64 = 50_000

    public struct Options: Sendable {
        /// How fast the pattern plays (1: as written).
        public var playbackRate: Double = 1
        /// Keep every command sent, for `PlayResult.playedCommands`, the record and a plot.
        public var keepsCommands = false
        /// Use the calibration `hapbridge calibrate` stored for this board and actuator.
        public var usesStoredCalibration = true
        /// The engine's log.
        public var logger = Logger(label: "hapbridge.engine")
        /// Virtual time advanced (or real time waited) per `step()`: `play`'s progress
        /// updates and the granularity of its stop.
        public var stepSeconds = 0.05
        /// How far ahead of "now" a pattern starts on a real clock (see `start`).
        public var realClockStartDelaySeconds = 0.02
        /// Which events the pattern's HapticSharpnessControl reaches (`RenderOptions`).
        public var sharpnessControl: RenderOptions.SharpnessControlScope = .continuousEvents
        /// How long `finish()` waits, at most, for a sensor's samples to reach the end of
        /// the recording (host seconds past the moment the board should have got there):
        /// a board reads its sensor's FIFO every few ms, and a device that falls behind
        /// the wall clock (an emulation on a loaded host) gets there later. Generous: what
        /// has not come by then is counted lost, never taken for the whole recording.
        public var sensorCatchUpSeconds = 5.0

        public init(playbackRate: Double = 1, keepsCommands: Bool = false) {
            self.playbackRate = playbackRate
            self.keepsCommands = keepsCommands
        }
    }

    /// Where the device is, resolved (`usb` → `usb:1-2`).
    public let address: DeviceAddress
    /// One line for reports.
    public let summary: String
    /// What a user should know about the choice of device (none plugged in: simulating).
    public let notice: String?
    public let actuator: ActuatorProfile
    /// The drive: closed loop with the calibration stored under the serial the board
    /// stated when the engine started, or open loop and why (`StoredDrive.undecided`
    /// before the engine started).
    public var drive: StoredDrive { decided?.drive ?? StoredDrive(note: "drive: open loop (stored calibration not used)") }
    private let decided: StoredDrive.Decided?
    /// The engine the pattern plays on (its statistics, capabilities, options).
    public let engine: HapticEngine
    /// The device runs on the wall clock (a bridge board, the simulated board with
    /// real timing); otherwise the session advances virtual time itself.
    public let isRealTime: Bool
    /// Whether the host's timer thread got real time, where the host times the writes
    /// (a hosted adapter); nil where a board keeps its own time.
    public let hostTimerIsRealTime: Bool?
    public let options: Options
    private let outcome = PlayOutcome()

    /// Opens the device at `address` (nil: the bridge board if exactly one is plugged
    /// in, else the simulated board, set up by `simulated`).
    public convenience init(
        address: DeviceAddress?, actuator: ActuatorProfile, options: Options = Options(),
        simulated: SimulatedBoardSetup? = nil, catalog: DeviceCatalog = DeviceCatalog()
    ) throws(DeviceSelectionError) {
        let opened = try catalog.open(address, simulated: simulated ?? SimulatedBoardSetup(actuator: actuator))
        self.init(opened: opened, actuator: actuator, options: options)
    }

    /// Takes an opened device for the engine.
    public init(opened: consuming OpenedDevice, actuator: ActuatorProfile, options: Options = Options()) {
        address = opened.address
        summary = opened.summary
        notice = opened.notice
        self.actuator = actuator
        self.options = options
        isRealTime = opened.transport.isRealTime
        hostTimerIsRealTime = opened.hostTiming?.isRealTime
        let decided = options.usesStoredCalibration ? StoredDrive.Decided() : nil
        self.decided = decided
        var engineOptions = HapticEngine.Options(driving: isRealTime ? .automatic : .manual)
        // Found by the serial the board states in HELLO_REPLY, on every transport.
        engineOptions.storedCalibration = decided.map { StoredDrive.source(profile: actuator, decided: $0) }
        engineOptions.logger = options.logger
        engineOptions.keepsSentCommandLog = options.keepsCommands
        engineOptions.sharpnessControl = options.sharpnessControl
        engine = HapticEngine(link: opened.takeLink(), actuator: actuator, options: engineOptions)
    }

    /// Starts the engine (HELLO, clock sync, the chip brought up for the actuator), if
    /// `start(_:)` has not yet. A failure closes the engine.
    public func startEngine() async throws(HapticEngineError) -> Capabilities {
        if outcome.state.engineStarted { return await engine.capabilities }
        let outcome = self.outcome
        await engine.setStoppedHandler { outcome.stopped($0) }
        do { try await engine.start() } catch {
            await engine.close()
            throw error
        }
        outcome.update { $0.engineStarted = true }
        return await engine.capabilities
    }

    /// Starts the engine if needed, then the pattern: as soon as possible in virtual
    /// time; on a real clock `realClockStartDelaySeconds` ahead, so its first event
    /// reaches the board on time like every other (a frame's way to a board over USB
    /// varies by more than the engine's lead for an immediate start — measured: up to a
    /// few ms on a loaded host — and nobody at the bench can tell 20 ms).
    public func start(_ pattern: HapticPattern) async throws(PlayError) {
        do { _ = try await startEngine() } catch { throw .engineStart(error) }
        let player: HapticAdvancedPatternPlayer
        do {
            player = try await engine.makeAdvancedPlayer(with: pattern)
            let outcome = self.outcome
            try await player.setCompletionHandler { outcome.completed($0) }
            try await player.setPlaybackRate(options.playbackRate)
        } catch { throw .pattern(error) }
        let begin = await engine.currentTime + (isRealTime ? options.realClockStartDelaySeconds : 0)
        let duration = pattern.duration / options.playbackRate
        outcome.update {
            $0.begin = begin
            $0.duration = duration
        }
        do { try await player.start(atTime: isRealTime ? begin : 0) } catch { throw .pattern(error) }
    }

    /// The pattern's length at the playback rate, s (0 before `start`).
    public var duration: Double { outcome.state.duration }

    /// Lets one step of time pass (virtual time advanced, or real time waited out while
    /// the engine's service thread runs), delivers the engine's callbacks, and says how
    /// far the pattern is.
    public func step() async throws -> PlayProgress {
        try await pass(options.stepSeconds)
        await engine.callbacksDelivered()
        let begin = outcome.state.begin
        let position = max(0, await engine.currentTime - begin)
        outcome.update { $0.position = position }
        let state = outcome.state
        let finished =
            state.endedEarly || state.stopRequested != nil || (state.completed && position >= state.duration)
            || position > state.duration + 1  // the completion never came: report, do not hang
        return PlayProgress(position: position, duration: state.duration, statistics: await engine.statistics, isFinished: finished)
    }

    /// Steps until the pattern ends, the engine stops or `stop` is called, reporting
    /// each step; then `finish()`.
    public func run(progress: (PlayProgress) throws -> Void = { _ in }) async throws -> PlayResult {
        while true {
            let p = try await step()
            try progress(p)
            if p.isFinished { break }
        }
        return try await finish()
    }

    /// Records on past the pattern's end until `seconds` of board time after it (a
    /// measurement's ring-down), stepping as `step()` does; `stopWaiting` (a signal came)
    /// cuts it short. The recording then ends there, in board time, whatever the host's
    /// pace (`finish()`).
    public func recordTail(seconds: Double, stopWaiting: () -> Bool = { false }) async throws {
        let state = outcome.state
        let end = state.begin + state.duration + seconds
        outcome.update { $0.recordingEnd = end }
        var passed = 0.0
        while passed < seconds + 1, !stopWaiting(), outcome.state.stopRequested == nil {
            _ = try await step()
            passed += options.stepSeconds
            if await engine.currentTime >= end { break }
        }
    }

    /// Stops the engine at once (STOP_ALL flushes the board's queue and puts the chip in
    /// standby) and makes `step()` report the play finished. Safe from any thread,
    /// a signal's reaction among them; returns before the engine has stopped.
    public func stop(reason: String) {
        let first = outcome.update { (state: inout PlayOutcome.State) -> Bool in
            guard state.stopRequested == nil else { return false }
            state.stopRequested = reason
            return true
        }
        guard first else { return }
        let engine = self.engine, outcome = self.outcome
        let stopping = Task {
            let at = await engine.currentTime
            await engine.stop()
            outcome.update { $0.flushedAt = Int64((at * 1e6).rounded(.down)) }
        }
        outcome.update { $0.stopping = stopping }
    }

    /// Lets the last brake ring down, closes the engine and gathers what happened.
    /// `interruption`: why the caller stopped the play (default: the reason given to `stop`).
    public func finish(interruption: @autoclosure () -> String? = nil) async throws -> PlayResult {
        // A stop's STOP_ALL is sent before the result is read, so what it flushed is known.
        await outcome.state.stopping?.value
        try await pass(options.stepSeconds)  // let the last brake ring down in the plot
        await engine.callbacksDelivered()
        // The board's own word on what it ran, flushed and still holds: the counts and
        // the record are what the chip got, not what was sent.
        let settled = await engine.settleDelivery()
        let state = outcome.state  // before close(), which ends any player still going
        let interruption = interruption() ?? state.stopRequested
        // A play that ran to its end is recorded to a board time (its end and any tail):
        // the sensor's samples up to there are waited for, and the recording cut there.
        let playedToTheEnd = !state.endedEarly && interruption == nil
        let recordingEnd = state.recordingEnd ?? (state.begin + state.duration + options.stepSeconds)
        if playedToTheEnd { await awaitSensor(throughBoardSeconds: recordingEnd) }
        let statistics = await engine.statistics
        // Whatever stopped the engine first (the link gone; a stop the board reported as it
        // went, such as a hosted core's host-silence stop after the player was
        // stopped), the transport's account of its loss goes with it.
        let lossReason = state.stopReason != nil ? await engine.withLink { $0.lossReason } : nil
        let ran = await engine.ranCommands
        let serial = await engine.withLink { $0.identity?.serialNumber }
        await engine.close()
        // What STOP_ALL flushed from the board's queue never played: the record and the
        // plot hold what did, and the drive falls to 0 where the chip went to standby.
        let flushedAt = outcome.state.flushedAt
        let beginBoard = UInt64(max(0, (state.begin * 1e6).rounded(.down)))
        let sent = await engine.sentCommands
        // Where the board never said (it went away), what was sent up to the stop.
        let played = statistics.commandsRun != nil ? ran : flushedAt.map { at in sent.filter { $0.time <= at } } ?? sent
        var driveTrace: [(time: UInt64, amplitude: Int8)] = played.compactMap { c in
            guard case .rtp(let amplitude) = c.command, c.time >= Int64(beginBoard) else { return nil }
            return (UInt64(c.time), amplitude)
        }
        if let flushedAt, flushedAt >= Int64(beginBoard) { driveTrace.append((UInt64(flushedAt), 0)) }
        // The acceleration from a little before the first stamp: a sensor samples every
        // 744 µs, so a trace cut at the stamp would start after the motion did and no
        // envelope of it would cover the drive's start (rise time and lag need it). The
        // holes from then on go with it: a hole is seen only once a later sample came,
        // so every one lies within the recording.
        let since = beginBoard > Self.preTriggerMicroseconds ? beginBoard - Self.preTriggerMicroseconds : 0
        let until = playedToTheEnd ? UInt64(max(0, (recordingEnd * 1e6).rounded(.down))) : nil
        var trace = await recording(since: since, until: until, drive: driveTrace)
        trace.startMicroseconds = beginBoard
        trace.boardSerial = serial
        return PlayResult(
            address: address, statistics: statistics, completed: state.completed, endedEarly: state.endedEarly,
            engineStopReason: state.stopReason, lossReason: lossReason, interruption: interruption, position: state.position,
            duration: state.duration, playedCommands: played,
            flushedCommands: statistics.commandsRun != nil ? statistics.commandsFlushed : sent.count - played.count,
            deliverySettled: settled, trace: trace)
    }

    /// How often `awaitSensor` looks for the samples it waits for, s.
    static let sensorPollSeconds = 0.01

    /// Lets a sensor's samples catch up with `end` (board s), at most
    /// `Options.sensorCatchUpSeconds`. A model's samples are the physics' own steps,
    /// there as soon as its time is.
    private func awaitSensor(throughBoardSeconds end: Double) async {
        guard await engine.withLink({ $0.telemetry?.accelerationOrigin }) == .sensor else { return }
        let target = UInt64(max(0, (end * 1e6).rounded(.down)))
        var waited = 0.0
        while waited < options.sensorCatchUpSeconds {
            if let reached = await engine.acceleration(since: target), !reached.isEmpty { return }
            do { try await pass(Self.sensorPollSeconds) } catch { return }
            waited += Self.sensorPollSeconds
        }
    }

    /// The acceleration from `since` to `until` (board µs; nil: all that came), less a
    /// sensor's zero-g offset, with the holes in it. A sensor whose samples stop short of
    /// `until` lost the rest: counted, never taken for a recording that ended there.
    private func recording(since: UInt64, until: UInt64?, drive: [(time: UInt64, amplitude: Int8)]) async -> PlayTrace {
        let (origin, source, axis) = await engine.withLink {
            ($0.telemetry?.accelerationOrigin, $0.telemetry?.accelerationSource, $0.telemetry?.accelerationAxis)
        }
        let since = origin == .sensor ? await restingStart(since: since, until: until, driveStart: drive.first?.time) : since
        var recorded = await engine.acceleration(since: since)
        var losses = await engine.withLink { $0.telemetry?.accelerationLosses(since: since) } ?? []
        if let until, let all = recorded {
            let kept = all.filter { $0.boardMicroseconds <= until }
            recorded = kept
            losses = losses.compactMap { $0.clipped(to: Double(since)...Double(until)) }
            if origin == .sensor, let last = kept.last, let rate = AccelerationProvenance.rate(kept.map(\.boardMicroseconds)) {
                // From the last sample kept, or a hole's end past it (the frames after the
                // hole came, but later than `until`).
                let period = 1e6 / rate
                let next = max(Double(last.boardMicroseconds) + period, losses.last?.endMicroseconds ?? 0)
                let short = Int(((Double(until) - next) / period).rounded(.down)) + 1
                if short > 0 {
                    losses.append(AccelerationLoss(firstMissingMicroseconds: next, periodMicroseconds: period, count: short, cause: .neverArrived))
                }
            }
        }
        return PlayTrace(
            samples: recorded.map { ZeroGOffset.motion(in: $0, origin: origin ?? .model) }, source: source, drive: drive, origin: origin,
            axis: axis, losses: losses)
    }

    /// Where a sensor's recording starts: `since`, unless the sled's rest from there to
    /// the drive's start never crosses zero (less the zero-g offset of the recording from
    /// `since`, as `recording` takes it out) — then the latest sample before a crossing
    /// that lies within `longestPreTriggerMicroseconds` before `since`. The envelope's first point is the largest sample of the recording's first
    /// run of one sign: a run from `since` into the motion put it at the motion's first
    /// peak, after the drive's start, and rise time and lag then found nothing recorded
    /// at the start (the sensor's noise at rest, less an offset estimated over the whole
    /// recording, can keep one sign for the 5 ms pre-trigger: seen in 1 of 3 four-board
    /// farm runs).
    private func restingStart(since: UInt64, until: UInt64?, driveStart: UInt64?) async -> UInt64 {
        guard let driveStart, driveStart > since else { return since }
        let reach = since > Self.longestPreTriggerMicroseconds ? since - Self.longestPreTriggerMicroseconds : 0
        guard let all = await engine.acceleration(since: reach) else { return since }
        let offset = ZeroGOffset.of(all.filter { $0.boardMicroseconds >= since && $0.boardMicroseconds <= (until ?? .max) })
        let rest = all.filter { $0.boardMicroseconds < driveStart }
        func sign(_ g: Double) -> Int { g > offset ? 1 : (g < offset ? -1 : 0) }
        guard let nominal = rest.firstIndex(where: { $0.boardMicroseconds >= since }) else { return since }
        // A crossing within the nominal pre-trigger: nothing to do.
        if rest[nominal...].indices.dropFirst().contains(where: { sign(rest[$0].g) != sign(rest[$0 - 1].g) }) { return since }
        var i = nominal
        while i > 0, sign(rest[i - 1].g) == sign(rest[i].g) { i -= 1 }
        return i > 0 ? rest[i - 1].boardMicroseconds : since
    }

    private func pass(_ seconds: Double) async throws {
        if isRealTime { try await Task.sleep(for: .seconds(seconds)) } else { try await engine.advance(bySeconds: seconds) }
    }
}

/// How far a play is, after one `PlaySession.step()`.
public struct PlayProgress: Sendable {
    /// Pattern time played, s (may run past `duration` while the end is awaited).
    public var position: Double
    public var duration: Double
    public var statistics: StreamStatistics
    /// The pattern ended, the engine stopped, or `stop` was called: time for `finish()`.
    public var isFinished: Bool

    /// How far along, 0...1.
    public var fraction: Double { Self.fraction(position, of: duration) }

    /// How far along, 0...1; a pattern without duration (one transient) is all done.
    public static func fraction(_ position: Double, of duration: Double) -> Double {
        duration > 0 ? min(1, max(0, position / duration)) : 1
    }
}

/// What a play did.
public struct PlayResult: Sendable {
    public var address: DeviceAddress
    public var statistics: StreamStatistics
    /// The player's completion came.
    public var completed: Bool
    /// The engine stopped before the pattern's end.
    public var endedEarly: Bool
    /// Why the engine stopped, when the client did not ask.
    public var engineStopReason: StoppedReason?
    /// Why the device went away, when the engine stopped by itself and the transport
    /// could say (`FrameTransport.lossReason`: a hosted adapter's error, or its
    /// guardian's word), whichever stop reason the engine heard first.
    public var lossReason: String?
    /// Why the caller stopped the play (a signal), if it did.
    public var interruption: String?
    public var position: Double
    public var duration: Double
    /// What reached the board and played (with `Options.keepsCommands`), board µs stamps.
    public var playedCommands: [TimedCommand]
    /// Commands a stop flushed from the board's queue before they played.
    public var flushedCommands: Int
    /// The board accounted for every command before the session closed
    /// (`HapticEngine.settleDelivery`): `statistics.commandsRun` is final.
    public var deliverySettled: Bool
    public var trace: PlayTrace

    /// Nil when the pattern played to its end, else why it did not.
    public var stopReason: String? { interruption ?? engineStopReason.map { "\($0)" + (lossReason.map { " (\($0))" } ?? "") } }

    /// The pattern did not play on time: a command left the host too late for its
    /// stamp, or the board started one more than 100 µs after it (an underrun). The
    /// rule `play` and `measure` exit 4 by, and a `run` step ERRORs by.
    public var playedLate: Bool { statistics.lateCommands > 0 || statistics.boardUnderruns > 0 }

    /// Commands sent that never reached the chip, by the board's own count, for a play
    /// that ran to its end (after a stop, commands it cut off are expected); nil when
    /// the board could not be asked. Anything but 0 is a failure.
    public var undeliveredCommands: Int? {
        guard deliverySettled, !endedEarly, interruption == nil else { return nil }
        return statistics.commandsUndelivered
    }

    /// The link lost nothing: the board accounted for every command and ran every one
    /// it was sent, withdrawn by a change or flushed by a stop apart.
    public var noneDropped: Bool { deliverySettled && statistics.commandsUndelivered == 0 }

    /// The `play --record` document (`PlayRecord`).
    public var recordJSON: String {
        PlayRecord.json(
            device: address.description, commands: playedCommands, flushed: flushedCommands, settled: deliverySettled, statistics: statistics,
            stopReason: stopReason,
            acceleration: trace.provenance.map { ($0, trace.peakG) })
    }
}

/// Why a play could not start.
public enum PlayError: Error, Sendable, CustomStringConvertible {
    /// The engine did not start (the device did not answer, refused, went away).
    case engineStart(HapticEngineError)
    /// The pattern could not be played on this engine.
    case pattern(any Error)

    public var description: String {
        switch self {
        case .engineStart(let e): "cannot start the engine: \(e)"
        case .pattern(let e): "\(e)"
        }
    }
}

/// What the engine's callbacks said (on its callback queue) and where the play is, read
/// by the session: every access holds the lock, which is what makes `@unchecked
/// Sendable` sound.
final class PlayOutcome: @unchecked Sendable {
    struct State {
        var engineStarted = false
        var begin = 0.0
        var duration = 0.0
        var position = 0.0
        /// The player's completion came.
        var completed = false
        /// …with `engineStopped`: the engine stopped before the pattern's end.
        var cutShort = false
        /// The engine's stopped handler: why, when the client did not ask.
        var stopReason: StoppedReason?
        /// `stop(reason:)` was called.
        var stopRequested: String?
        /// The engine's stop after `stop(reason:)`, under way or done.
        var stopping: Task<Void, Never>?
        /// A stop flushed the board (STOP_ALL) at this board time.
        var flushedAt: Int64?
        /// Where the recording ends, board s (`recordTail`); nil: the pattern's end and
        /// the ring-down `finish()` lets pass.
        var recordingEnd: Double?

        /// The engine stopped before the pattern's end.
        var endedEarly: Bool { stopReason != nil || cutShort }
    }

    private let lock = NSLock()
    private var value = State()
    var state: State { lock.withLock { value } }

    @discardableResult
    func update<T>(_ change: (inout State) -> T) -> T { lock.withLock { change(&value) } }

    func completed(_ error: HapticEngineError?) {
        update {
            $0.completed = true
            if error != nil { $0.cutShort = true }
        }
    }

    func stopped(_ reason: StoppedReason) { update { $0.stopReason = reason } }
}
