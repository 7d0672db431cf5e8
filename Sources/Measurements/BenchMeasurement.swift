import Foundation

/// One figure a bench measured: what it is, its unit and its number. HIL limits and
/// verdicts are applied to these elsewhere; this module only measures.
public struct BenchMeasurement: Sendable, Equatable, Codable, CustomStringConvertible {
    /// What was measured, as a report names it ("rise time 10→90 %").
    public var name: String
    public var unit: MeasurementUnit
    public var value: Double

    public init(name: String, unit: MeasurementUnit, value: Double) {
        self.name = name
        self.unit = unit
        self.value = value
    }

    /// "rise time 10→90 %: 12.345 ms".
    public var description: String { "\(name): \(unit.format(value)) \(unit.rawValue)" }
}

/// The units a measurement is given in. The raw value is the symbol printed and
/// written to JSON, so a limit file can say which unit it expects.
public enum MeasurementUnit: String, Sendable, Codable, CaseIterable {
    /// Standard gravity, 9.80665 m/s².
    case g
    case milliseconds = "ms"
    case hertz = "Hz"
    case percent = "%"
    /// A register's raw value (0...255).
    case registerCode = "code"
    /// A pure number (a quality factor): SI's unit one, written "1".
    case one = "1"
    /// A count of bytes (what a flash step wrote and verified).
    case bytes
    /// A level ratio, 20·log10 of an amplitude ratio (a golden trace's envelope error
    /// and peak delta: `TraceComparison`).
    case decibels = "dB"

    public func format(_ value: Double) -> String {
        switch self {
        case .registerCode, .bytes: String(format: "%.0f", value)
        case .hertz, .percent: String(format: "%.1f", value)
        case .decibels: String(format: "%.2f", value)
        case .one: String(format: "%.2f", value)
        case .g, .milliseconds: String(format: "%.3f", value)
        }
    }
}

/// Why a figure could not be measured from what was recorded: names the figure and
/// what was missing, so a HIL report can say it instead of a number.
public enum MeasurementError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No acceleration samples in the window (a device without telemetry, or a window
    /// outside the recording).
    case noAcceleration(measurement: String)
    /// The drive never stepped up from 0 (nothing to time a response from).
    case noDriveStep(measurement: String)
    /// The envelope never crossed `levelG` after `afterMilliseconds` (board time).
    case levelNotReached(measurement: String, levelG: Double, afterMilliseconds: Double)
    /// The chip left LRA_PERIOD at 0: it did not track a resonance (an ERM, an open-loop
    /// LRA, or an LRA that does not resonate).
    case noResonance(measurement: String)
    /// The bench procedure a measurement needs failed; its report's line.
    case procedureFailed(measurement: String, reason: String)
    /// The level the figure is read at lies within the sensor's noise (`NoiseFloor`):
    /// the drive is too weak for this sensor to time.
    case withinNoise(measurement: String, levelG: Double, noiseG: Double)
    /// The sensor lost samples where the figure is read (`AccelerationLoss`): `lost` of
    /// the `expected` samples in `span` never reached the host, so the figure would be
    /// read across a hole as if the trace were whole.
    case samplesLost(measurement: String, lost: Int, expected: Int, span: String)
    /// The recordings span more than a comparison reads (`TraceComparison.maxSpanSeconds`):
    /// bounded, so a file's times cannot make it run without end.
    case spanTooLong(measurement: String, seconds: Double, limitSeconds: Double)

    public var description: String {
        switch self {
        case .noAcceleration(let m): "\(m): no acceleration recorded (the device has no accelerometer or simulated sled, or the window is empty)"
        case .noDriveStep(let m): "\(m): the drive never steps up from 0"
        case .levelNotReached(let m, let level, let after):
            "\(m): the acceleration envelope never crosses \(String(format: "%.4f", level)) g after \(String(format: "%.3f", after)) ms"
        case .noResonance(let m): "\(m): LRA_PERIOD is 0 (the chip tracked no resonance: an ERM, an open-loop LRA, or an LRA that does not resonate)"
        case .procedureFailed(let m, let reason): "\(m): \(reason)"
        case .samplesLost(let m, let lost, let expected, let span):
            "\(m): the sensor lost \(lost) of the \(expected) samples \(span) (the recording's losses say where and why): a figure read across the hole would not be the actuator's"
        case .spanTooLong(let m, let seconds, let limit):
            "\(m): the recordings span \(String(format: "%.0f", seconds)) s together; a comparison reads at most \(String(format: "%.0f", limit)) s"
        case .withinNoise(let m, let level, let noise):
            "\(m): the level it is read at, \(String(format: "%.4f", level)) g, is within the sensor's noise (\(String(format: "%.4f", noise)) g rms where the recording is quietest; it needs \(String(format: "%.0f", NoiseFloor.margin)) times that): a drive this weak cannot be timed by this sensor"
        }
    }
}
