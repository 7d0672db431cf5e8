import BridgeLink
import DRV2605
import Haptics
import HapticCompilation

/// Why the engine stopped when the client did not ask it to (Core Haptics'
/// `StoppedReason`, mapped to a bench: no audio session or app lifecycle here,
/// a device and a chip instead). Never sent for `stop()`.
public enum StoppedReason: Sendable, Equatable, CustomStringConvertible {
    /// The device went away (unplugged, USB error).
    case deviceDisconnected
    /// Auto-shutdown put an idle engine in standby; starting a player wakes it.
    case idleTimeout
    /// `notifyWhenPlayersFinished`'s handler returned `.stopEngine`.
    case notifyWhenFinished
    /// The engine was deinitialised while running.
    case engineDestroyed
    /// The board's chip latched a fault (the board stopped the actuator itself).
    case chipFault(ChipFaults)
    /// The board's maximum-continuous-drive limit stopped the actuator.
    case driveTimeLimit
    /// The board could not keep up with what it was sent: it ran commands ever later
    /// than their stamps, or it stopped for host silence while the host was sending
    /// (its intake fell so far behind that frames waited in the link).
    case boardFellBehind(BoardOverload)
    /// Anything else: the board stopped for host silence, refused the session, …
    case systemError(String)

    public var description: String {
        switch self {
        case .deviceDisconnected: "device disconnected"
        case .idleTimeout: "idle timeout (auto-shutdown)"
        case .notifyWhenFinished: "players finished (notifyWhenPlayersFinished asked to stop)"
        case .engineDestroyed: "engine destroyed"
        case .chipFault(let f): "chip fault: \(f)"
        case .driveTimeLimit: "the board's maximum continuous drive time was reached"
        case .boardFellBehind(let o): "\(o)"
        case .systemError(let why): "system error: \(why)"
        }
    }
}

/// What the engine saw of a board that fell behind (`StoppedReason.boardFellBehind`).
public struct BoardOverload: Sendable, Equatable, CustomStringConvertible {
    /// How late (µs) the board said it ran the last command it ran; nil when it
    /// could no longer say (its host-silence stop came first).
    public var lagMicroseconds: Int64?
    /// Commands the board started more than 100 µs late, this session.
    public var underruns: Int
    /// The pacing the engine sent at (`Options.writeSpacingMicroseconds`); 0: none.
    public var writeSpacingMicroseconds: Int64
    /// The intake the board stated (HELLO_REPLY), or the unstated board's figure.
    public var boardWriteSpacingMicroseconds: Int64
    /// The board stopped for host silence although the host had sent a frame this
    /// many µs before (within the keep-alive): frames it had not taken in yet.
    public var silenceReportedAfterSendMicroseconds: Int64?

    public init(
        lagMicroseconds: Int64?, underruns: Int, writeSpacingMicroseconds: Int64,
        boardWriteSpacingMicroseconds: Int64 = BoardIntake.writeSpacingMicroseconds, silenceReportedAfterSendMicroseconds: Int64? = nil
    ) {
        self.lagMicroseconds = lagMicroseconds
        self.underruns = underruns
        self.writeSpacingMicroseconds = writeSpacingMicroseconds
        self.boardWriteSpacingMicroseconds = boardWriteSpacingMicroseconds
        self.silenceReportedAfterSendMicroseconds = silenceReportedAfterSendMicroseconds
    }

    public var description: String {
        var what: [String] = []
        if let lag = lagMicroseconds { what.append("it ran commands \(Self.ms(lag)) after their stamps") }
        if let sent = silenceReportedAfterSendMicroseconds {
            what.append("it stopped for host silence though the host had sent a frame \(Self.ms(sent)) before (frames waited in the link behind its intake)")
        }
        what.append("\(underruns) commands started late")
        let pace = writeSpacingMicroseconds > 0
            ? "the engine sent at most \(Self.rate(writeSpacingMicroseconds)) writes a millisecond"
            : "the engine sent without pacing (write spacing 0)"
        return "the board fell behind what it was sent: \(what.joined(separator: "; ")); \(pace), "
            + "the board's intake is \(Self.rate(boardWriteSpacingMicroseconds)) a millisecond (HELLO_REPLY)"
    }

    static func ms(_ us: Int64) -> String { us >= 10_000 ? "\(us / 1000) ms" : "\(Double(us / 100) / 10) ms" }
    /// Writes a millisecond at a spacing, as text ("4", "6.7"; "unbounded" for no spacing).
    static func rate(_ spacing: Int64) -> String {
        let r = BoardIntake.writesPerMillisecond(spacing: spacing)
        guard r.isFinite else { return "unbounded" }
        return r == r.rounded() ? "\(Int64(r))" : "\((r * 10).rounded() / 10)"
    }
}

/// The board's latched fault bits (PROTOCOL.md "Fault bits").
public struct ChipFaults: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let overTemperature = ChipFaults(rawValue: 1 << 0)
    public static let overCurrent = ChipFaults(rawValue: 1 << 1)
    /// The chip did not acknowledge a command.
    public static let i2c = ChipFaults(rawValue: 1 << 2)

    public var description: String {
        var names: [String] = []
        if contains(.overTemperature) { names.append("over-temperature") }
        if contains(.overCurrent) { names.append("over-current") }
        if contains(.i2c) { names.append("I2C (chip not answering)") }
        return names.isEmpty ? "unknown" : names.joined(separator: ", ")
    }
}

/// What `notifyWhenPlayersFinished`'s handler asks for.
public enum FinishedAction: Sendable, Equatable {
    case stopEngine
    case leaveEngineRunning
}

/// Core Haptics' error codes that apply to a bench, plus the device's own.
public enum HapticEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    case engineNotRunning
    /// The board did not answer HELLO (or SYNC) in time.
    case startTimeout
    case deviceDisconnected
    case deviceError(String)
    /// The board's answer made no sense (wrong protocol version, no chip, bad frame).
    case protocolError(String)
    /// The player was invalidated by a board reset (recreate it, as Core Haptics asks).
    case invalidPlayer
    case invalidTime(Double)
    case invalidPlaybackRate(Double)
    case invalidParameter(String)
    case patternRender(RenderError)
    case compilation(CompilationError)
    case notSupported(String)
    /// The operation was cut short because the engine stopped or reset.
    case engineStopped

    public var description: String {
        switch self {
        case .engineNotRunning: "the engine is not running: call start() first"
        case .startTimeout: "the board did not answer in time"
        case .deviceDisconnected: "the device is disconnected"
        case .deviceError(let s): "device error: \(s)"
        case .protocolError(let s): "protocol error: \(s)"
        case .invalidPlayer: "the player belongs to an engine session that has reset; make a new one"
        case .invalidTime(let t): "invalid time \(t) s: times are finite seconds, 0 to a year, on the engine clock (currentTime); 0 means now"
        case .invalidPlaybackRate(let r): "invalid playback rate \(r): it must be between 0.01 and 100"
        case .invalidParameter(let s): "invalid parameter: \(s)"
        case .patternRender(let e): "the pattern cannot be played: \(e)"
        case .compilation(let e): "\(e)"
        case .notSupported(let s): "not supported: \(s)"
        case .engineStopped: "the engine stopped"
        }
    }
}

/// What the attached device can do (Core Haptics' `capabilitiesForHardware`).
/// The chip and shaping are known once the engine has started (HELLO_REPLY names
/// the chip); before that `supportsHaptics` assumes a board with a chip.
public struct Capabilities: Sendable, Equatable {
    /// False when the board reported no DRV2605 on its bus.
    public var supportsHaptics: Bool
    /// Audio events are read and kept, never played.
    public var supportsAudio: Bool
    public var chip: DeviceVariant?
    public var actuator: String
    /// Event and dynamic parameter ranges the engine plays (Core Haptics' own).
    public var intensityRange: ClosedRange<Double>
    public var sharpnessRange: ClosedRange<Double>
    public var intensityControlRange: ClosedRange<Double>
    public var sharpnessControlRange: ClosedRange<Double>
    public var playbackRateRange: ClosedRange<Double>
    /// How the compiler shapes sharpness on this chip and actuator.
    public var sharpnessShaping: DriveTarget.SharpnessShaping?
    /// Who closes the loop: the host (open) or the chip, against calibration results.
    public var driveLoop: DriveTarget.Loop?
}

/// Streaming figures since the engine started.
public struct StreamStatistics: Sendable, Equatable {
    public var commandsSent = 0
    /// Commands the host sent later than their stamp minus the link's one-way delay:
    /// they reach the board late (the board then runs them at once). Includes those
    /// sent again after a refusal too late for their stamps (`lateAfterRefusal`).
    public var lateCommands = 0
    /// Commands the board started more than 100 µs late (from QUEUE_STATUS).
    public var boardUnderruns = 0
    /// Frames the board refused (NAK), by any reason (`refusals` has them by reason).
    public var rejectedFrames = 0
    /// Every NAK, by reason.
    public var refusals = RefusalTally()
    /// Commands sent again after the board refused them (QUEUE_FULL: it had fallen
    /// behind); every one goes again, in order, unless a stop comes first (`BridgeLink`).
    public var resentCommands = 0
    /// What became of `commandsSent`, by the board's own count (QUEUE_STATUS's commands
    /// executed; `Delivery`): ran on the chip. Nil while the board has not reported.
    public var commandsRun: Int?
    /// Taken into the board's queue, then emptied from it by a stop before their turn.
    public var commandsFlushed = 0
    /// Taken back by a change (REPLACE_FROM) and replaced by newer commands.
    public var commandsWithdrawn = 0
    /// Still in the board's queue at its last report.
    public var commandsQueued = 0
    /// Frames the board sent that never arrived (gaps in its sequence numbers): a lost
    /// NAK makes the counts above inexact.
    public var boardFramesLost = 0
    /// Sent and neither run, flushed, withdrawn nor queued: refused and not (yet) sent
    /// again — a stop came first, or the board has not yet been asked. Nil while the
    /// board has not reported. After a play that ran to its end and was settled
    /// (`HapticEngine.settleDelivery`), anything here never reached the chip.
    public var commandsUndelivered: Int? {
        commandsRun.map { commandsSent - $0 - commandsFlushed - commandsWithdrawn - commandsQueued }
    }
    /// Of `lateCommands`, those late because the board refused them first.
    public var lateAfterRefusal = 0
    /// Untimed register transactions answered (other tasks' reads and writes while
    /// the engine streamed).
    public var untimedAnswered = 0
    /// The most commands the host believed queued on the board at once.
    public var queueHighWater = 0
    /// REPLACE_FROMs sent: changes that took back commands already queued (1.1 boards).
    public var replacements = 0
    /// The pacing this session streams at: the least board µs between two stamped
    /// writes (`Options.writeSpacingMicroseconds`, the board's intake).
    public var writeSpacingMicroseconds: Int64 = 0
    /// The board's intake as its HELLO_REPLY states it (or, where it does not, the
    /// figure a host assumes: `BoardFrame.HelloReply.unstatedWriteSpacingMicroseconds`).
    public var boardWriteSpacingMicroseconds: Int64 = 0
    /// Drive values the pacing never sent: a later value replaced them within their
    /// slot (changes denser than the board's intake; `DriveCompiler` rule 4).
    public var mergedWrites = 0
    /// Writes the pacing sent after their own time, by less than a slot.
    public var delayedWrites = 0
    /// The latest any command the board reported running started after its stamp,
    /// µs (QUEUE_STATUS).
    public var boardLagHighWater: Int64 = 0
    public var clock: ClockSync.Estimate?
    /// The fastest SYNC round trip this session and the slowest of the recent ones, µs:
    /// the link's delay and how much it varies (the untimed gap rule's window).
    public var minimumRoundTripMicroseconds: Int64 = 0
    public var recentMaximumRoundTripMicroseconds: Int64 = 0
}

extension HapticEngine.Options {
    /// The slowest one-way link (µs) this engine works with.
    ///
    /// - Start-up syncs the clock with `syncExchangesPerRound` exchanges one after
    ///   another, each a round trip, within `startTimeoutMicroseconds`: a fifth of that
    ///   time is kept spare for the board's own turnaround and the host's scheduling.
    /// - A board that cannot take queued commands back (protocol 1.0) is streamed only
    ///   `lookAheadMicroseconds` ahead, topped up once per service pass one control step
    ///   at a time: the newest command leaves at least look-ahead − pass − step before
    ///   its stamp, so a slower link delivers commands late (measured on 3 s of dense
    ///   steps: none late at 17 ms, nearly all from 19 ms).
    public func maximumLinkLatencyMicroseconds(canReplace: Bool) -> Int64 {
        let startUp = startTimeoutMicroseconds * 4 / 5 / (2 * Int64(max(1, syncExchangesPerRound)))
        guard !canReplace else { return startUp }
        return min(startUp, lookAheadMicroseconds - servicePeriodMicroseconds - controlStepMicroseconds)
    }
}
