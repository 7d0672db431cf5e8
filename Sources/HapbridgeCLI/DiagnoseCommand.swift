import Actuators
import ArgumentParser
import Bench
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
        let bench = try await BridgeBench.open(opened)
        var report = await Self.diagnose(on: bench, profile: profile)
        await bench.close()
        report.noteInterruption()
        try report.finish(plot: plot, title: "Diagnostics", subtitle: bench.summary)
    }

    /// The procedure on any device (`BenchProcedures.diagnose`).
    public static func diagnose<D: HardwareDevice>(on device: D, profile: ActuatorProfile?) async -> HardwareReport {
        await BenchProcedures.diagnose(on: device, profile: profile)
    }
}
