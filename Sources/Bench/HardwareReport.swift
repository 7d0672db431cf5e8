import DRV2605
import Foundation

/// What a bench procedure found: the lines to show and whether it passed.
public struct HardwareReport: Sendable {
    public var lines: [String] = []
    public var passed = true
    public var acceleration: AccelerationTrace?
    /// A passed auto-calibration's results (calibration), to store.
    public var calibration: AutoCalibrationResult?
    /// VBAT as the chip read it, when the procedure read it.
    public var supplyVolts: Double?
    /// The chip the procedure found (which one a stored calibration was measured on).
    public var chip: DeviceVariant?
    /// Set when a signal cut the procedure short: the reason.
    public var interruption: String?

    public init() {}

    public mutating func add(_ line: String) { lines.append(line) }

    public mutating func fail(_ line: String) {
        lines.append(line)
        passed = false
    }

    /// Says so when the caller cut the procedure short (a signal): the error the
    /// procedure met as its wait was cut ("wait cancelled") is the interruption, and is
    /// said as one.
    public mutating func noteInterruption(_ reason: String) {
        interruption = reason
        if let last = lines.last, last.hasPrefix("error: ") { lines.removeLast() }
        fail("stopped: \(reason); the actuator was stopped and the board's queue flushed (STOP_ALL)")
    }

    public var text: String { lines.joined(separator: "\n") }
}

func format(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
func hexByte(_ b: UInt8) -> String { String(format: "0x%02X", b) }
