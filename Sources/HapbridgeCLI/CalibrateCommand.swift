import Actuators
import ArgumentParser
import DRV2605

/// `hapbridge calibrate --actuator PROFILE`
public struct CalibrateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Bring up the DRV2605, run its auto-calibration for an actuator and print the results to store.",
        discussion: """
            Writes RATED_VOLTAGE, OD_CLAMP, DRIVE_TIME, brake factor and loop gain from the profile, runs \
            auto-calibration (MODE 7 + GO), and prints A_CAL_COMP, A_CAL_BEMF and BEMF_GAIN decoded, the LRA \
            resonance and pass/fail, plus the five bytes (RATED_VOLTAGE...FEEDBACK_CONTROL) to write back after a reset. Exits 1 on FAIL.
            """)

    @OptionGroup public var actuator: ActuatorOption
    @OptionGroup public var device: DeviceOptions

    public init() {}

    public func validate() throws {
        if actuator.actuator == nil { throw ValidationError("calibrate needs --actuator PROFILE (a name from Hardware/actuators or a .json path)") }
    }

    public func run() async throws {
        let plot = try device.plotFile()
        guard let profile = try actuator.load() else { return }
        let sim = device.makeSimulatedDevice(profile: profile)
        let report = await Self.calibrate(on: sim, profile: profile)
        try report.finish(plot: plot, title: "Auto-calibration: \(profile.displayName)", subtitle: sim.summary)
    }

    /// The procedure on any device.
    public static func calibrate<D: HardwareDevice>(on device: D, profile: ActuatorProfile) async -> HardwareReport {
        var report = HardwareReport()
        report.add("device: \(device.summary)")
        report.add("actuator: \(profile.displayName), rated \(format(profile.ratedVoltage, 2)) V\(profile.kind == .lra ? " rms" : ""), \(profile.drive.loop.rawValue) loop")
        var driver = DRV2605Driver(bus: device.bus)
        do {
            let settings = try await driver.bringUp(profile: profile)
            report.add("chip: \(driver.variant.map(String.init(describing:)) ?? "?"), VBAT \(format(try await driver.supplyVoltage(), 2)) V")
            report.lines += SettingsReport.lines(settings, profile: profile)
            device.clearAcceleration()
            let result: AutoCalibrationResult
            do {
                result = try await driver.autoCalibrate()
            } catch .autoCalibrationFailed(let failed) {
                report.fail("auto-calibration: FAIL (DIAG_RESULT = 1): actuator open, shorted, of the wrong type or wrong rated voltage")
                report.lines += SettingsReport.calibration(failed)
                report.acceleration = device.acceleration()
                return report
            }
            report.add("auto-calibration: PASS")
            report.lines += SettingsReport.calibration(result)
            report.acceleration = device.acceleration()
            if let a = report.acceleration { report.add("peak acceleration during calibration: \(AccelerationPlot.peakText(a.peakG)) (simulated)") }
            report.add("store and write back after a reset: registers \(RegisterAddress.ratedVoltage)...\(RegisterAddress.feedbackControl) = " + result.storedBlock.map { hexByte($0) }.joined(separator: " "))
        } catch {
            report.fail("error: \(error)")
        }
        return report
    }
}
