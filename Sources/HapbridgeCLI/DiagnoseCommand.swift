import Actuators
import ArgumentParser
import DRV2605

/// `hapbridge diagnose [--actuator PROFILE]`
public struct DiagnoseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Check the DRV2605 and its actuator: identity, supply, faults, open/short diagnostic, LRA resonance.",
        discussion: """
            Without --actuator the chip runs its diagnostic with reset settings (ERM mode: open/short check only) \
            and the simulated device has nothing attached unless a profile is given, so expect FAIL (open). \
            With --actuator the chip is configured for the profile first (an LRA must also resonate). Exits 1 on FAIL.
            """)

    @OptionGroup public var actuator: ActuatorOption
    @OptionGroup public var device: DeviceOptions

    public init() {}

    public func run() async throws {
        Interruption.install()
        let plot = try device.plotFile()
        let profile = try actuator.load()
        let opened = try device.open(actuator: profile)
        let bench = try await BridgeBench(opened)
        var report = await Self.diagnose(on: bench, profile: profile)
        await bench.close()
        report.noteInterruption()
        try report.finish(plot: plot, title: "Diagnostics", subtitle: bench.summary)
    }

    public static func diagnose<D: HardwareDevice>(on device: D, profile: ActuatorProfile?) async -> HardwareReport {
        var report = HardwareReport()
        report.add("device: \(device.summary)")
        var driver = DRV2605Driver(bus: device.bus)
        do {
            let variant = try await driver.detect()
            let status = try await driver.read(StatusRegister.self)
            report.add("chip: \(variant) (STATUS \(hexByte(status.rawValue)), DEVICE_ID \(status.deviceID))")
            try await driver.reset()
            try await driver.setStandby(false)
            if let profile {
                report.add("actuator: \(profile.displayName)")
                report.lines += SettingsReport.lines(try await driver.configure(for: profile), profile: profile)
            } else {
                report.add("actuator: none given, reset settings (ERM, closed loop)")
            }
            report.add("\(RegisterAddress.supplyVoltage): \(format(try await driver.supplyVoltage(), 2)) V")
            device.clearAcceleration()
            let result = try await driver.runDiagnostics()
            report.acceleration = device.acceleration()
            if result.passed {
                report.add("diagnostic: PASS (DIAG_RESULT = 0, STATUS \(hexByte(result.status)))")
            } else {
                report.fail("diagnostic: FAIL (DIAG_RESULT = 1, STATUS \(hexByte(result.status))): actuator open, shorted, or an LRA that does not resonate")
            }
            if let f = result.resonanceHz {
                report.add("resonance: \(format(f, 1)) Hz (LRA_PERIOD while driven)" + (profile?.lra.map { ", profile says \(format($0.resonantFrequencyHz, 1)) Hz" } ?? ""))
            }
            try await driver.checkFaults()
            report.add("faults: none (OVER_TEMP = 0, OC_DETECT = 0)")
        } catch {
            report.fail("error: \(error)")
        }
        return report
    }
}
