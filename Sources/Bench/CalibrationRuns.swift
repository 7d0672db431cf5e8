import Actuators
import DRV2605
import Measurements

/// Auto-calibration run N times on one device (`BenchProcedures.calibrate`, the same
/// procedure `hapbridge calibrate` runs): how often it passes, and how far apart the
/// values it leaves are. A healthy actuator on a steady bench gives the same codes
/// within a step or two; a spread says the mounting or the part is not steady.
public struct CalibrationRuns: Sendable {
    /// Every run's report, in order (the lines `hapbridge calibrate` prints).
    public var reports: [HardwareReport]

    public init(reports: [HardwareReport]) { self.reports = reports }

    /// Runs the calibration `count` times, each from a fresh bring-up, letting the
    /// actuator come to rest for `restMicroseconds` (on the device's clock) between runs:
    /// a run started while the last one's buzz still rings measures that ringing too.
    /// `stop` is asked before each run: true ends the series there (a run interrupted).
    public static func run<D: HardwareDevice>(
        _ count: Int, on device: D, profile: ActuatorProfile, restMicroseconds: UInt64 = 300_000, stop: () -> Bool = { false }
    ) async -> CalibrationRuns {
        var reports: [HardwareReport] = []
        for i in 0..<max(0, count) where !stop() {
            if i > 0 {
                do { try await DRV2605Driver(bus: device.bus).wait(microseconds: restMicroseconds) } catch {
                    var report = HardwareReport()
                    report.error(error)
                    reports.append(report)
                    continue
                }
            }
            reports.append(await BenchProcedures.calibrate(on: device, profile: profile))
        }
        return CalibrationRuns(reports: reports)
    }

    /// The results of the runs that passed.
    public var passedResults: [AutoCalibrationResult] { reports.compactMap { $0.passed ? $0.calibration : nil } }

    /// Passed runs over runs, %.
    public var passRatePercent: BenchMeasurement {
        let rate = reports.isEmpty ? 0 : Double(passedResults.count) / Double(reports.count) * 100
        return BenchMeasurement(name: "auto-calibration pass rate", unit: .percent, value: rate)
    }

    /// Pass rate, then min and max of A_CAL_COMP, A_CAL_BEMF and BEMF_GAIN over the
    /// passed runs (none when no run passed: there is no spread to give).
    public var measurements: [BenchMeasurement] {
        var out = [passRatePercent]
        let passed = passedResults
        guard !passed.isEmpty else { return out }
        let registers: [(String, KeyPath<AutoCalibrationResult, UInt8>)] = [
            ("A_CAL_COMP", \.compensationCode), ("A_CAL_BEMF", \.backEMFCode), ("BEMF_GAIN", \.backEMFGainCode),
        ]
        for (register, path) in registers {
            let values = passed.map { Double($0[keyPath: path]) }
            out.append(BenchMeasurement(name: "\(register) min", unit: .registerCode, value: values.min() ?? 0))
            out.append(BenchMeasurement(name: "\(register) max", unit: .registerCode, value: values.max() ?? 0))
        }
        return out
    }
}
