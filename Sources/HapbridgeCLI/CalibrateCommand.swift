import BridgeLink
import Actuators
import ArgumentParser
import Bench
import DRV2605
import Devices

/// `hapbridge calibrate [--actuator PROFILE]`
public struct CalibrateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Bring up the DRV2605, run its auto-calibration for an actuator and print the results to store.",
        discussion: """
            Writes RATED_VOLTAGE, OD_CLAMP, DRIVE_TIME, brake factor and loop gain from the profile, runs \
            auto-calibration (MODE 7 + GO), and prints A_CAL_COMP, A_CAL_BEMF and BEMF_GAIN decoded, the LRA \
            resonance and pass/fail, plus the five bytes (RATED_VOLTAGE...FEEDBACK_CONTROL) to write back after a reset. \
            On PASS the results are stored per board serial number and actuator under \
            $XDG_CONFIG_HOME/hapbridge/calibration (default ~/.config/hapbridge/calibration), and `play` on the same \
            board and actuator drives an LRA in closed loop with them. It runs on any device (--device): through a \
            board's register frames exactly as on the simulated board, a hosted adapter's (--device ftdi) through the \
            firmware core hosted in this process. Without --actuator: the simulated board's own actuator; on a board, the one stored for it \
            (calibrated again); with neither, nothing is driven (exit 2). Exits 1 on FAIL, and when the results \
            cannot be stored (printed first, then the file and the cause; --no-save does not store them).
            """)

    @Option(help: ArgumentHelp(ActuatorChoice.help, valueName: "PROFILE"))
    public var actuator: String?
    @OptionGroup public var device: DeviceOptions

    @Flag(help: "Do not store the results (they are kept per board serial and actuator for `play`, which then drives an LRA in closed loop).")
    public var noSave = false

    public init() {}

    public func run() async throws {
        Interruption.install()
        let plot = try device.plotFile()
        let given = try actuator.map(locateActuatorProfile)
        let opened = try device.open(actuator: try ActuatorChoice.forOpening(given))
        let chosen = try await ActuatorChoice.decide(command: "calibrate", given: given, opened: opened)
        chosen.noteIfStored()
        let profile = chosen.profile
        let bench = try await BridgeBench.open(opened)
        var report = await Self.calibrate(on: bench, profile: profile)
        await bench.close()
        report.noteInterruption()
        // Kept under the serial the board stated in HELLO_REPLY (a hosted adapter's own,
        // through its hosted core), which `play` and `HapticEngine.open` look up.
        var notStored: CLIError?
        if report.passed, let result = report.calibration, !noSave {
            switch Self.store(result, board: bench.identity, profile: profile, supplyVolts: report.supplyVolts) {
            case .success(let line): report.add(line)
            case .failure(let error): notStored = error
            }
        }
        // The measured results (and the plot) first, whatever happens to the store:
        // they are on screen even when they could not be kept.
        try report.finish(plot: plot, title: "Auto-calibration: \(profile.displayName)", subtitle: bench.summary)
        if let notStored { throw notStored }
    }

    /// Keeps the results for `play` (per board serial and actuator, under the user's
    /// XDG config directory): the line that says where, or why they were not kept,
    /// which fails the command (status 1), so that a script can trust a 0.
    static func store(_ result: AutoCalibrationResult, board: BoardIdentity, profile: ActuatorProfile, supplyVolts: Double?)
        -> Result<String, CLIError>
    {
        said(CalibrationKeeping.keep(result, board: board, profile: profile, supplyVolts: supplyVolts))
    }

    private static func said(_ kept: Result<CalibrationKeeping.Kept, CalibrationKeeping.NotKept>) -> Result<String, CLIError> {
        switch kept {
        case .success(let kept):
            for warning in kept.warnings { try? Console.err("note: \(warning)") }
            return .success("stored for `play` (closed loop): \(kept.file)")
        case .failure(let why):
            for warning in why.warnings { try? Console.err("note: \(warning)") }
            return .failure(CLIError(why.description))
        }
    }

    /// The procedure on any device (`BenchProcedures.calibrate`).
    public static func calibrate<D: HardwareDevice>(on device: D, profile: ActuatorProfile) async -> HardwareReport {
        await BenchProcedures.calibrate(on: device, profile: profile)
    }
}
