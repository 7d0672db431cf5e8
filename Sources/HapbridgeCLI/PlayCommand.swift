import Actuators
import ArgumentParser
import DRV2605
import DeviceInterface
import Devices
import Foundation
import HapticCompilation
import HapticEngine
import Haptics
import Plot

/// `hapbridge play PATTERN`: the whole path of one pattern — engine, player,
/// compilation, clock sync, look-ahead streaming, the board's firmware, the chip and
/// the actuator — on any device: a bridge board over USB, or the simulated board.
public struct PlayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a pattern (AHAP, .haptic or a built-in name) on the bridge board, showing progress, late events and underruns.",
        discussion: """
            The device is chosen with --device (see `hapbridge list`); without it, the bridge board if exactly one is \
            plugged in, else the simulated bridge board (the firmware core, the DRV2605 model and the actuator \
            physics). The simulated board runs in virtual time, as fast as it can; with --realtime its clock is the \
            host's and the engine runs on its own service thread, as it does on a bridge board. \
            If `hapbridge calibrate` stored results for this board and actuator, an LRA plays in closed loop (the chip \
            tracks its resonance); otherwise in open loop. \
            Progress goes to standard error: one line redrawn in place when standard error is a terminal, otherwise a \
            line at each tenth of the pattern. It shows the pattern time, commands streamed, commands the host sent \
            too late, and underruns the board reported (commands it started more than 100 µs after their stamp). \
            If the engine stops before the pattern's end (the board's continuous-drive limit of 30 s, a chip fault, \
            the device going away) the reason is printed and the exit status is 3. --plot saves the drive the board was \
            sent, with the acceleration where the device has a source of it (the simulated sled).
            """)

    @Argument(help: "An .ahap or .haptic file, - for standard input, or a built-in haptic name (see `hapbridge library`).")
    public var pattern: String

    @Option(help: ArgumentHelp("Actuator profile: a name from Hardware/actuators or a .json path.", valueName: "PROFILE"))
    public var actuator: String = SimulatedBoardSetup.defaultActuatorProfile

    @OptionGroup public var device: DeviceOptions

    @Option(name: .customLong("playback-rate"), help: PlaybackRateOption.help)
    public var playbackRate: Double = 1

    @Option(
        help: ArgumentHelp(
            "Write what was sent to the board as JSON: every command with its board-time stamp, and the counts "
                + "(schema in the README, \"play --record\").", valueName: "file.json"))
    public var record: String?

    @Flag(help: "Simulated board only: run it on the wall clock, the engine on its own service thread (as on hardware).")
    public var realtime = false

    @Option(
        name: .customLong("link-latency"),
        help: ArgumentHelp(
            "Simulated board only: its USB one-way latency in µs, 0 to \(Self.maxLinkLatencyMicroseconds) (default 500).", valueName: "µs"))
    public var linkLatency: UInt64 = 500

    public init() {}

    /// The longest one-way link delay the engine works with on the simulated board
    /// (which speaks protocol 1.1, so the start-up's clock sync is what bounds it:
    /// `HapticEngine.Options.maximumLinkLatencyMicroseconds`).
    static var maxLinkLatencyMicroseconds: UInt64 {
        UInt64(max(0, HapticEngine.Options().maximumLinkLatencyMicroseconds(canReplace: true)))
    }

    /// How far ahead of "now" a pattern starts on a real clock (see `run`).
    static let realClockStartDelaySeconds = 0.02

    /// Virtual time advanced per step of the play loop.
    static let stepSeconds = 0.05

    public func validate() throws {
        try PlaybackRateOption.validate(playbackRate)
        guard linkLatency <= Self.maxLinkLatencyMicroseconds else {
            throw ValidationError(
                "--link-latency is at most \(Self.maxLinkLatencyMicroseconds) µs: the engine's start-up syncs the clock with round trips that must fit its start timeout")
        }
        if let address = device.address, address != .simulated, realtime || linkLatency != 500 {
            throw ValidationError("--realtime and --link-latency apply to the simulated board (--device sim)")
        }
    }

    public func run() async throws {
        Interruption.install()
        let plotFile = try device.plotFile()
        let recordFile = try record.map { (path) throws(CLIError) in try OutputFile(path, purpose: "record") }
        let source = try PatternSource.resolve(pattern)
        try source.printWarnings()
        try source.printAudioNotice("played")
        let located = try locateActuatorProfile(actuator)
        let profile = located.profile
        let opened = try device.open(actuator: profile, timing: realtime ? .realTime : .virtual, link: .init(latencyMicroseconds: linkLatency))
        if opened.address != .simulated, realtime || linkLatency != 500 {
            throw CLIError("--realtime and --link-latency apply to the simulated board, not \(opened.address)")
        }
        let summary = opened.summary
        let address = opened.address
        let onRealClock = opened.transport.isRealTime
        let serial = opened.usbBoard?.serialNumber ?? (opened.address == .simulated ? SimulatedBoardSetup.serialNumber.text : nil)
        let drive = Self.storedCalibration(serial: serial, profile: profile)
        var options = HapticEngine.Options(driving: onRealClock ? .automatic : .manual)
        options.calibration = drive.calibration
        options.logger = device.logging.logger("hapbridge.engine")
        options.keepsSentCommandLog = plotFile != nil || recordFile != nil
        let engine = HapticEngine(device: opened.takeTransport(), actuator: profile, options: options)
        let outcome = PlayOutcome()
        await engine.setStoppedHandler { outcome.stopped($0) }
        // A signal stops the engine at once (STOP_ALL flushes the board's queue and puts
        // the chip in standby), from the signal thread: the play loop may be waiting.
        Interruption.shared.onInterrupt { _ in
            Task {
                let at = await engine.currentTime
                await engine.stop()
                outcome.flushed(atBoardMicroseconds: Int64((at * 1e6).rounded(.down)))
            }
        }

        try Console.lines(["device: \(summary)", "actuator: \(profile.displayName), profile \(TerminalText.safe(located.file))"], to: .output)
        if onRealClock, let notice = engine.serviceThreadScheduling.notice { try Console.err("note: \(notice)") }
        do { try await engine.start() } catch {
            await engine.close()
            try Interruption.shared.exitIfInterrupted()
            throw CLIError("cannot start the engine: \(error)")
        }
        let caps = await engine.capabilities
        try Console.out(
            "engine: started on \(caps.chip.map(String.init(describing:)) ?? "?"), \(caps.driveLoop == .closed ? "closed" : "open") loop, "
                + "sharpness shaping: \(caps.sharpnessShaping.map(String.init(describing:)) ?? "?")")
        try Console.out(drive.note)

        let player: HapticAdvancedPatternPlayer
        do { player = try await engine.makeAdvancedPlayer(with: source.loaded.pattern) } catch { throw CLIError("\(source.label): \(error)") }
        try await player.setCompletionHandler { outcome.completed($0) }
        try await player.setPlaybackRate(playbackRate)
        let duration = source.loaded.pattern.duration / playbackRate
        // On a real clock the pattern starts a little ahead, so its first event reaches
        // the board on time like every other: a frame's way to a board over USB varies
        // by more than the engine's lead for an immediate start (measured: up to a few
        // ms on a loaded host), and nobody at the bench can tell 20 ms. In virtual time
        // "as soon as possible" (0) is exact.
        let begin = await engine.currentTime + (onRealClock ? Self.realClockStartDelaySeconds : 0)
        let beginBoard = UInt64(max(0, (begin * 1e6).rounded(.down)))
        try await player.start(atTime: onRealClock ? begin : 0)
        try Console.out("playing \(source.label): \(Self.ms(duration)) at playback rate \(JSONWriter.format(playbackRate))")

        var progress = ProgressLine(style: Console.isTerminal(.error) ? .inPlace : .lines)
        var position = 0.0
        while true {
            try await pass(Self.stepSeconds, on: engine, realClock: onRealClock)
            await engine.callbacksDelivered()
            position = max(0, await engine.currentTime - begin)
            let state = outcome.state
            let stats = await engine.statistics
            try progress.update(Self.progress(position: min(position, duration), duration: duration, stats: stats), fraction: Self.fraction(position, of: duration))
            if state.endedEarly || Interruption.shared.signal != nil { break }
            if state.completed && position >= duration { break }
            if position > duration + 1 { break }  // the completion never came: report, do not hang
        }
        try progress.finish(Self.progress(position: min(position, duration), duration: duration, stats: await engine.statistics))
        try await pass(Self.stepSeconds, on: engine, realClock: onRealClock)  // let the last brake ring down in the plot
        await engine.callbacksDelivered()
        let state = outcome.state  // before stop(), which ends any player still going
        let interruption = Interruption.shared.reason
        let s = await engine.statistics
        await engine.close()
        var report = ["done: \(s.commandsSent) commands, \(s.lateCommands) late, \(s.boardUnderruns) underruns, \(s.rejectedFrames) rejected; queue high water \(s.queueHighWater)"]
        if s.mergedWrites > 0 || s.delayedWrites > 0 {
            report.append("paced to the board's intake (a write every \(s.writeSpacingMicroseconds) µs): \(s.mergedWrites) drive values merged into a later one, \(s.delayedWrites) writes delayed by less than a slot")
        }
        if let c = s.clock {
            report.append(String(format: "clock: board − host offset %.0f µs, drift %.1f ppm, error ±%.0f µs (%d sync rounds)", c.offset, c.drift * 1e6, c.errorMicroseconds, c.exchanges))
        }
        // What STOP_ALL flushed from the board's queue never played: the record and the
        // plot hold what did, and the drive falls to 0 where the chip went to standby.
        let flushedAt = outcome.state.flushedAt
        let sent = await engine.sentCommands
        let played = flushedAt.map { at in sent.filter { $0.time <= at } } ?? sent
        var driveTrace: [(UInt64, Int8)] = played.compactMap { c in
            guard case .rtp(let amplitude) = c.command, c.time >= Int64(beginBoard) else { return nil }
            return (UInt64(c.time), amplitude)
        }
        if let flushedAt, flushedAt >= Int64(beginBoard) { driveTrace.append((UInt64(flushedAt), 0)) }
        let trace = PlayTrace(
            samples: await engine.acceleration(since: beginBoard), source: await engine.withDevice { $0.telemetry?.accelerationSource },
            drive: driveTrace)
        if let samples = trace.samples, !samples.isEmpty {
            report.append("peak acceleration: \(AccelerationPlot.peakText(trace.peakG)) (\(trace.source ?? "measured"))")
        } else {
            report.append("acceleration: not measured (the device has no accelerometer)")
        }
        try Console.lines(report, to: .output)

        if let recordFile {
            try recordFile.write(
                PlayRecord.json(
                    device: address.description, commands: played, flushed: sent.count - played.count, statistics: s,
                    stopReason: interruption ?? state.stopReason.map { "\($0)" }))
            try Console.out("record: \(recordFile.name)")
        }
        if let interruption {
            try Console.err(
                "stopped: \(interruption) after about \(Self.ms(min(position, duration))) of \(Self.ms(duration)); "
                    + "the engine stopped and the board's queue was flushed (STOP_ALL)")
        } else if state.endedEarly {
            try Console.err("stopped early, after about \(Self.ms(min(position, duration))) of \(Self.ms(duration)): \(Self.explain(state.stopReason, engine.options))")
        }
        if let plotFile {
            try plotFile.write(trace.plot(title: "hapbridge play \(source.label)", subtitle: "\(profile.displayName) on \(summary)").svg())
            try Console.out("plot: \(plotFile.name)")
        }
        try Interruption.shared.exitIfInterrupted()
        if state.endedEarly { throw ExitStatus.incomplete.exitCode }
        if !state.completed { throw CLIError("the player did not report completion within 1 s of the pattern's end") }
    }

    /// The engine's stop reason, with the figure that explains it where there is one.
    static func explain(_ reason: StoppedReason?, _ options: HapticEngine.Options) -> String {
        switch reason {
        case nil: "the engine stopped"
        case .driveTimeLimit?:
            "\(StoppedReason.driveTimeLimit) (the drive stayed on for \(JSONWriter.format(Double(options.maxDriveMilliseconds) / 1000)) s without a pause: the board's safety limit)"
        case let reason?: "\(reason)"
        }
    }

    /// Lets time pass: virtual time is advanced by hand, real time is waited out while
    /// the engine's service thread runs.
    func pass(_ seconds: Double, on engine: HapticEngine, realClock: Bool) async throws {
        if realClock { try await Task.sleep(for: .seconds(seconds)) } else { try await engine.advance(bySeconds: seconds) }
    }

    /// The calibration `hapbridge calibrate` stored for this board and actuator, and a
    /// line saying what the drive will be and why.
    static func storedCalibration(serial: String?, profile: ActuatorProfile) -> (calibration: AutoCalibrationResult?, note: String) {
        guard profile.kind == .lra else { return (nil, "drive: open loop (an ERM is driven open loop)") }
        do {
            let store = try CalibrationStore.user()
            guard let record = try store.load(boardSerial: serial, profile: profile) else {
                return (nil, "drive: open loop (no stored calibration for this board and actuator: run `hapbridge calibrate`)")
            }
            // Checked here as the engine will check it, so a mismatch plays open loop rather than not at all.
            do { _ = try DriveTarget(profile: profile, variant: record.chip, calibration: record.result) } catch {
                return (nil, "drive: open loop (the stored calibration cannot be used: \(error))")
            }
            return (record.result, "drive: closed loop, calibrated \(ISO8601DateFormatter().string(from: record.measuredAt))")
        } catch {
            return (nil, "drive: open loop (\(TerminalText.safe(error.description)))")
        }
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }

    /// How far along, 0...1; a pattern without duration (one transient) is all done.
    static func fraction(_ position: Double, of duration: Double) -> Double {
        duration > 0 ? min(1, max(0, position / duration)) : 1
    }

    static func progress(position: Double, duration: Double, stats s: StreamStatistics) -> String {
        let width = 20
        let filled = Int((fraction(position, of: duration) * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return String(format: "  %7.0f / %.0f ms [%@] sent %d, late %d, underruns %d", position * 1000, duration * 1000, bar, s.commandsSent, s.lateCommands, s.boardUnderruns)
    }
}

/// What `play` recorded: the amplitudes the board was sent, and the acceleration where
/// the device has a source of it (board µs throughout).
struct PlayTrace {
    var samples: [AccelerationSample]?
    var source: String?
    var drive: [(time: UInt64, amplitude: Int8)]

    var peakG: Double { samples?.map { abs($0.g) }.max() ?? 0 }

    /// Acceleration and the drive as a step trace scaled to the acceleration's peak, to
    /// read them together; without acceleration, the drive alone as a fraction of full scale.
    func plot(title: String, subtitle: String) -> Plot {
        let samples = self.samples ?? []
        guard let t0 = samples.first?.boardMicroseconds ?? drive.first?.time else {
            return AccelerationPlot.plot(timesMs: [], g: [], title: title, subtitle: subtitle + " (nothing recorded)")
        }
        let times = samples.map { Double($0.boardMicroseconds &- t0) / 1000 }
        let scale = samples.isEmpty ? 1 : max(0.001, peakG)
        var dx: [Double] = [], dy: [Double] = []
        var last = 0.0
        for (t, a) in drive where t >= t0 {
            let x = Double(t - t0) / 1000
            dx.append(x)
            dy.append(last)
            last = Double(a) / 127 * scale
            dx.append(x)
            dy.append(last)
        }
        if let end = times.last ?? dx.last {
            dx.append(end)
            dy.append(last)
        }
        let name = samples.isEmpty ? "RTP drive (fraction of full scale; no acceleration measured)" : "RTP drive (scaled to the peak)"
        return AccelerationPlot.plot(
            timesMs: times, g: samples.map(\.g), source: source ?? "measured", drive: (name: name, xs: dx, ys: dy),
            title: title, subtitle: subtitle)
    }
}

/// What the engine's callbacks said (on its callback queue), read by the command:
/// every access holds the lock, which is what makes `@unchecked Sendable` sound.
final class PlayOutcome: @unchecked Sendable {
    struct State {
        /// The player's completion came.
        var completed = false
        /// …with `engineStopped`: the engine stopped before the pattern's end.
        var cutShort = false
        /// The engine's stopped handler: why, when the client did not ask.
        var stopReason: StoppedReason?
        /// A signal stopped the engine (STOP_ALL) at this board time.
        var flushedAt: Int64?

        /// The engine stopped before the pattern's end.
        var endedEarly: Bool { stopReason != nil || cutShort }
    }

    private let lock = NSLock()
    private var value = State()
    var state: State { lock.withLock { value } }

    func completed(_ error: HapticEngineError?) {
        lock.withLock {
            value.completed = true
            if error != nil { value.cutShort = true }
        }
    }

    func stopped(_ reason: StoppedReason) { lock.withLock { value.stopReason = reason } }

    func flushed(atBoardMicroseconds time: Int64) { lock.withLock { value.flushedAt = time } }
}
