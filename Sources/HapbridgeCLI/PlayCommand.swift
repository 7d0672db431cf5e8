import Actuators
import ArgumentParser
import Bench
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
            The actuator is --actuator's profile; without it, the simulated board's own, or on a board the one \
            `hapbridge calibrate` stored for its serial; a board with neither is not driven (exit 2: a profile's voltages \
            set how hard the chip drives, and a guess could overdrive what is wired). \
            If `hapbridge calibrate` stored results for this board and actuator, an LRA plays in closed loop (the chip \
            tracks its resonance); otherwise in open loop. \
            Progress goes to standard error: one line redrawn in place when standard error is a terminal, otherwise a \
            line at each tenth of the pattern. It shows the pattern time, commands streamed, commands the host sent \
            too late, and underruns the board reported (commands it started more than 100 µs after their stamp). \
            If the engine stops before the pattern's end (the board's continuous-drive limit of 30 s, a chip fault, \
            the board falling behind, the device going away, a hosted adapter's guardian gone or taking the adapter from a \
            player that was stopped) the reason is printed and the exit status is 3. A pattern \
            played to its end with any command sent after its stamp or any underrun did not play on time: exit status 4. \
            The summary says what ran on the chip by the board's own count (QUEUE_STATUS), what a stop flushed, and \
            every refusal by reason; a command the board refused is sent again, in order, and "none dropped" is printed \
            only when the board's count shows every one ran. A play that ran to its end with commands the chip never \
            got (or that the board could not account for) is a failure: exit status 1. --record lists the commands the \
            chip got, in order. --plot saves the drive the chip got, with the acceleration where the device has a \
            source of it (the simulated sled, an accelerometer). Ctrl-C, SIGTERM or SIGHUP stops the actuator and ends \
            the play (exit 130, 143, 129); Ctrl-Z does the same and then suspends (148 when continued).
            """)

    @Argument(help: "An .ahap or .haptic file, - for standard input, or a built-in haptic name (see `hapbridge library`).")
    public var pattern: String

    @Option(help: ArgumentHelp(ActuatorChoice.help, valueName: "PROFILE"))
    public var actuator: String?

    @OptionGroup public var device: DeviceOptions

    @OptionGroup public var accelerometer: AccelerometerAxisOption

    @Option(name: .customLong("playback-rate"), help: PlaybackRateOption.help)
    public var playbackRate: Double = 1

    @OptionGroup public var reading: PatternReadingOptions

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
        let source = try PatternSource.resolve(pattern, curveTimes: reading.controlPointTimes)
        try source.printWarnings()
        try source.printAudioNotice("played")
        let given = try actuator.map(locateActuatorProfile)
        var opened = try device.open(
            actuator: try ActuatorChoice.forOpening(given), timing: realtime ? .realTime : .virtual, link: .init(latencyMicroseconds: linkLatency))
        opened.accelerometerAxis = accelerometer.axis
        if opened.address != .simulated, realtime || linkLatency != 500 {
            throw CLIError("--realtime and --link-latency apply to the simulated board, not \(opened.address)")
        }
        let chosen = try await ActuatorChoice.decide(command: "play", given: given, opened: opened)
        let profile = chosen.profile
        var options = PlaySession.Options(playbackRate: playbackRate, keepsCommands: plotFile != nil || recordFile != nil)
        options.sharpnessControl = reading.sharpnessControlScope
        options.logger = device.logging.logger("hapbridge.engine")
        let session = PlaySession(opened: opened, actuator: profile, options: options)
        // A signal stops the engine at once (STOP_ALL flushes the board's queue and puts
        // the chip in standby), from the signal thread: the play loop may be waiting.
        Interruption.shared.onInterrupt { _ in session.stop(reason: Interruption.shared.reason ?? "interrupted") }

        try Console.lines(["device: \(session.summary)", "actuator: \(chosen.line)"], to: .output)
        // One notice per cause: where the device already said its host timer was refused
        // real time (a hosted adapter), the service thread's refusal has the same cause and remedy.
        if session.isRealTime, session.hostTimerIsRealTime != false, let notice = session.engine.serviceThreadScheduling.notice {
            try Console.err("note: \(notice)")
        }
        let caps: Capabilities
        do { caps = try await session.startEngine() } catch {
            try Interruption.shared.exitIfInterrupted()
            throw CLIError("cannot start the engine: \(error)")
        }
        try Console.out(
            "engine: started on \(caps.chip.map(String.init(describing:)) ?? "?"), \(caps.driveLoop == .closed ? "closed" : "open") loop, "
                + "sharpness shaping: \(caps.sharpnessShaping.map(String.init(describing:)) ?? "?")")
        try Console.out(session.drive.note)

        do { try await session.start(source.loaded.pattern) } catch { throw CLIError("\(source.label): \(error)") }
        let duration = session.duration
        try Console.out("playing \(source.label): \(Self.ms(duration)) at playback rate \(JSONWriter.format(playbackRate))")

        var progress = ProgressLine(style: Console.isTerminal(.error) ? .inPlace : .lines)
        var position = 0.0
        while true {
            let step = try await session.step()
            position = step.position
            try progress.update(Self.progress(position: min(position, duration), duration: duration, stats: step.statistics), fraction: step.fraction)
            if step.isFinished || Interruption.shared.signal != nil { break }
        }
        try progress.finish(Self.progress(position: min(position, duration), duration: duration, stats: await session.engine.statistics))
        let result = try await session.finish(interruption: Interruption.shared.reason)
        let s = result.statistics
        var report = ["done: \(s.commandsSent) commands, \(s.lateCommands) late, \(s.boardUnderruns) underruns, \(s.rejectedFrames) rejected; queue high water \(s.queueHighWater)"]
        report.append(Self.delivery(result))
        if s.rejectedFrames > 0 {
            let undelivered = s.commandsUndelivered ?? 0
            let dropped =
                result.noneDropped ? "none dropped"
                : !result.deliverySettled ? "whether all arrived is unknown"
                : result.undeliveredCommands != nil ? "\(undelivered) never sent again"
                : "\(undelivered) not sent again: the play stopped first"
            report.append(
                "refused by the board: \(s.refusals); \(s.resentCommands) commands sent again (\(dropped)), "
                    + "\(s.lateAfterRefusal) of them too late for their stamps")
        }
        if s.mergedWrites > 0 || s.delayedWrites > 0 {
            report.append("paced to the board's intake (a write every \(s.writeSpacingMicroseconds) µs): \(s.mergedWrites) drive values merged into a later one, \(s.delayedWrites) writes delayed by less than a slot")
        }
        if let c = s.clock {
            report.append(String(format: "clock: board − host offset %.0f µs, drift %.1f ppm, error ±%.0f µs (%d sync rounds)", c.offset, c.drift * 1e6, c.errorMicroseconds, c.exchanges))
        }
        let trace = result.trace
        if let samples = trace.samples, !samples.isEmpty {
            report.append("peak acceleration: \(AccelerationPlot.peakText(trace.peakG)), \(trace.provenance?.text ?? "measured")")
        } else {
            report.append("acceleration: not measured (the device has no accelerometer)")
        }
        try Console.lines(report, to: .output)

        if let recordFile {
            try recordFile.write(result.recordJSON)
            try Console.out("record: \(recordFile.name)")
        }
        if let interruption = result.interruption {
            try Console.err(
                "stopped: \(interruption) after about \(Self.ms(min(position, duration))) of \(Self.ms(duration)); "
                    + "the engine stopped and the board's queue was flushed (STOP_ALL)")
        } else if result.endedEarly {
            let why = Self.explain(result.engineStopReason, session.engine.options) + (result.lossReason.map { " (\(TerminalText.safe($0)))" } ?? "")
            try Console.err("stopped early, after about \(Self.ms(min(position, duration))) of \(Self.ms(duration)): \(why)")
        }
        if let plotFile {
            try plotFile.write(trace.plot(title: "hapbridge play \(source.label)", subtitle: "\(profile.displayName) on \(session.summary)").svg())
            try Console.out("plot: \(plotFile.name)")
        }
        try Interruption.shared.exitIfInterrupted()
        if result.endedEarly { throw ExitStatus.incomplete.exitCode }
        if !result.deliverySettled {
            throw CLIError("the board did not account for every command it was sent (\(Self.delivery(result))): what the chip got is unknown")
        }
        if let lost = result.undeliveredCommands, lost > 0 {
            throw CLIError("\(lost) of the \(s.commandsSent) commands sent never reached the chip (the board ran \(s.commandsRun ?? 0))")
        }
        if result.playedLate {
            try Console.err("played late: \(Self.lateness(s))")
            throw ExitStatus.playedLate.exitCode
        }
        if !result.completed { throw CLIError("the player did not report completion within 1 s of the pattern's end") }
    }

    /// What the chip got, by the board's own count.
    static func delivery(_ result: PlayResult) -> String {
        let s = result.statistics
        guard let ran = s.commandsRun else { return "delivered: unknown (the board did not report what it ran)" }
        var parts = ["\(ran) ran on the chip (the board's count)"]
        if s.commandsFlushed > 0 { parts.append("\(s.commandsFlushed) flushed by the stop") }
        if s.commandsWithdrawn > 0 { parts.append("\(s.commandsWithdrawn) replaced by changes") }
        if s.commandsQueued > 0 { parts.append("\(s.commandsQueued) still queued when the board last reported") }
        if let u = s.commandsUndelivered, u > 0 {
            parts.append(result.undeliveredCommands != nil ? "\(u) never reached the chip" : "\(u) refused and not sent again before the stop")
        }
        if !result.deliverySettled { parts.append("not all accounted for: the board's last report") }
        if s.boardFramesLost > 0 { parts.append("\(s.boardFramesLost) of the board's replies lost: these counts may be off") }
        return "delivered: " + parts.joined(separator: ", ")
    }

    /// Why a play counts as late, in figures.
    static func lateness(_ s: StreamStatistics) -> String {
        var why: [String] = []
        if s.lateCommands > 0 {
            why.append(
                "\(s.lateCommands) commands sent after their stamps"
                    + (s.lateAfterRefusal > 0 ? " (\(s.lateAfterRefusal) of them sent again after the board refused them)" : ""))
        }
        if s.boardUnderruns > 0 { why.append("\(s.boardUnderruns) started late by the board (underruns)") }
        return why.joined(separator: ", ")
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

    static func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }

    /// How far along, 0...1 (`PlayProgress.fraction`).
    static func fraction(_ position: Double, of duration: Double) -> Double { PlayProgress.fraction(position, of: duration) }

    static func progress(position: Double, duration: Double, stats s: StreamStatistics) -> String {
        let width = 20
        let filled = Int((fraction(position, of: duration) * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return String(format: "  %7.0f / %.0f ms [%@] sent %d, late %d, underruns %d", position * 1000, duration * 1000, bar, s.commandsSent, s.lateCommands, s.boardUnderruns)
    }
}
