import DRV2605
import Foundation
import Hex

/// What a bench procedure found: the lines to show, and how it ended, typed
/// (`ending`), which is what a caller judges it by (HIL's steps): the lines are for
/// people.
public struct HardwareReport: Sendable {
    public var lines: [String] = []
    /// How the procedure ended; the last of `fail`, `error` and `noteInterruption` sets it.
    public private(set) var ending: Ending = .passed
    public var passed: Bool { ending == .passed }
    public var acceleration: AccelerationTrace?
    /// A passed auto-calibration's results (calibration), to store.
    public var calibration: AutoCalibrationResult?
    /// VBAT as the chip read it, when the procedure read it.
    public var supplyVolts: Double?
    /// The chip the procedure found (which one a stored calibration was measured on).
    public var chip: DeviceVariant?
    /// Set when a signal cut the procedure short: the reason.
    public var interruption: String? {
        if case .interrupted(let why) = ending { return why }
        return nil
    }

    /// How a procedure ended.
    public enum Ending: Sendable, Equatable {
        case passed
        /// It ran, and the part failed it.
        case failed(Finding)
        /// It could not run to a verdict: the chip or the bus failed it.
        case error(DRV2605Error)
        /// The caller cut it short (a signal): the reason.
        case interrupted(String)
    }

    /// A part failing a procedure, as the chip reported it.
    public enum Finding: Sendable, Equatable, CustomStringConvertible {
        /// Auto-calibration ended with DIAG_RESULT = 1; what it left in the registers.
        case autoCalibrationFailed(AutoCalibrationResult)
        /// The open/short diagnostic ended with DIAG_RESULT = 1; STATUS then.
        case diagnosticFailed(status: UInt8)

        /// The report's line for it.
        public var description: String {
            switch self {
            case .autoCalibrationFailed:
                "auto-calibration: FAIL (DIAG_RESULT = 1): actuator open, shorted, of the wrong type or wrong rated voltage"
            case .diagnosticFailed(let status):
                "diagnostic: FAIL (DIAG_RESULT = 1, STATUS \(Hex.literal(status, width: 2))): actuator open, shorted, or an LRA that does not resonate"
            }
        }
    }

    public init() {}

    public mutating func add(_ line: String) { lines.append(line) }

    /// The part failed: its line, and the ending.
    public mutating func fail(_ finding: Finding) {
        lines.append(finding.description)
        ending = .failed(finding)
    }

    /// The procedure could not go on: "error: …", and the ending.
    public mutating func error(_ error: DRV2605Error) {
        lines.append("error: \(error)")
        ending = .error(error)
    }

    /// Says so when the caller cut the procedure short (a signal): the error the
    /// procedure met as its wait was cut ("wait cancelled") is the interruption, and is
    /// said as one.
    public mutating func noteInterruption(_ reason: String) {
        if case .error = ending, let last = lines.last, last.hasPrefix("error: ") { lines.removeLast() }
        lines.append("stopped: \(reason); the actuator was stopped and the board's queue flushed (STOP_ALL)")
        ending = .interrupted(reason)
    }

    public var text: String { lines.joined(separator: "\n") }
}

func format(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
