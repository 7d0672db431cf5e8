import Actuators
import ArgumentParser
import DRV2605
import DeviceInterface
import Devices
import Foundation
import HostedBoard
import SimulatedBridgeDevice

/// Options every hardware command shares: which device, how to simulate it, where to plot.
public struct DeviceOptions: ParsableArguments {
    public enum ChipVariant: String, ExpressibleByArgument, CaseIterable, Sendable {
        case drv2605l, drv2605
        var variant: DeviceVariant { self == .drv2605 ? .drv2605 : .drv2605L }
    }

    @Option(
        help: ArgumentHelp(
            "Device: sim (the simulated board), usb (the only or first bridge board), usb:SERIAL or usb:BUS-PORT[.PORT], "
                + DeviceCatalog.hostedAdapters.map { "\($0.scheme) or \($0.scheme):SERIAL (a DRV2605 on \($0.nameWithArticle)'s I2C, timed by this host)" }
                .joined(separator: ", ") + ". "
                + "Without it: the bridge board if exactly one is plugged in, else the simulated board.",
            valueName: "address"))
    public var device: DeviceArgument?

    @Option(help: "Simulated board only: its chip, drv2605l or drv2605.")
    public var variant: ChipVariant = .drv2605l

    @Option(help: "Simulated board only: its supply voltage VDD in volts (2.5...5.5).")
    public var supply: Double = 5.0

    @Option(
        name: .customLong("simulate-fault"),
        help: "Simulated board only: none, open, short, absent, wrong-type (the other actuator type wired), over-temperature, over-current, or timer-stall (its timer held off 30 ms, 400 ms after power-up: it falls behind and refuses commands).")
    public var simulateFault: SimulatedBoardSetup.Fault = .none

    @Flag(
        help: "Simulated board only: a LIS3DH accelerometer fitted on its I2C bus at 0x18, on the actuator's sled (\(ShippedFiles.document("Hardware/boards/accelerometer.md"))); acceleration figures then come from the sensor (labelled sensor), not the model.")
    public var accelerometer = false

    @Option(
        name: .customLong("simulate-actuator"),
        help: ArgumentHelp(
            "Simulated board only: the actuator on its outputs (a profile name or .json file), when it is not the one the command drives for (--actuator): the part in hand differs from its profile, as `emulate bridge --actuator` sets the physics.",
            valueName: "profile"))
    public var simulateActuator: String?

    @Option(
        name: .customLong("simulate-noise-seed"),
        help: ArgumentHelp(
            "Simulated board with --accelerometer only: the seed of the LIS3DH's noise (0...2^64−1; without it the same noise every run): runs that differ only in their sensor's noise.",
            valueName: "n"))
    public var simulateNoiseSeed: UInt64?

    @Option(
        name: .customLong("i2c-khz"),
        help: "\(Self.hostedDevices) only, whose I2C this host drives: the I2C clock, 400 (the DRV2605's fast mode) or 100 kHz (long wires, weak pull-ups).")
    public var i2cKHz: Int = 400

    @Option(help: PlotOption.help)
    public var plot: String?

    @OptionGroup public var logging: LoggingOptions

    public init() {}

    public func validate() throws {
        if simulateNoiseSeed != nil, !accelerometer { throw ValidationError("--simulate-noise-seed seeds the simulated LIS3DH's noise: give --accelerometer too") }
        guard (2.5...5.5).contains(supply) else { throw ValidationError("--supply must be between 2.5 and 5.5 V (the DRV2605's VDD range), not \(supply)") }
        try PlotOption.validate(plot)
        guard [100, 400].contains(i2cKHz) else { throw ValidationError("--i2c-khz must be 400 or 100, not \(i2cKHz)") }
        if i2cKHz != 400, let address, !namesHostedAdapter {
            throw ValidationError("--i2c-khz applies to an adapter whose I2C this host drives (\(Self.hostedDevices)); \(address) keeps its own bus at 400 kHz")
        }
        if case .failure(let error)? = device?.parsed { throw ValidationError(TerminalText.safe(error.description)) }
    }

    /// `--device` (nil: choose by the rule above). ArgumentParser parsed it once, and
    /// `validate()` refused a malformed one before any command could run.
    var address: DeviceAddress? { device?.address }

    /// Whether `--device` names a hosted adapter (`ftdi`, `ftdi:SERIAL`: `DeviceAddress.hostedSchemes`).
    var namesHostedAdapter: Bool {
        if case .hosted? = address { return true }
        return false
    }

    /// "--device ftdi[:SERIAL]": the addresses `--i2c-khz` applies to.
    static let hostedDevices = "--device " + DeviceAddress.hostedSchemes.map { "\($0)[:SERIAL]" }.joined(separator: ", ")

    /// How a hosted adapter (`--device ftdi`) runs: the I2C clock `--i2c-khz` says, and a
    /// guardian that stops the chip if this process dies (SIGKILL, a crash).
    var adapterSettings: HostedAdapterSettings {
        HostedAdapterSettings(i2cClockHz: Double(i2cKHz) * 1000, guardian: GuardCommand.choice)
    }

    static func simulatorOnly(_ address: DeviceAddress) -> CLIError {
        CLIError("--variant, --supply, --simulate-fault, --simulate-actuator, --simulate-noise-seed and --accelerometer apply to the simulated board (--device sim), not \(address)")
    }

    /// Whether any option that only the simulated board takes was given.
    var simulatorOptionsGiven: Bool {
        variant != .drv2605l || supply != 5.0 || simulateFault != .none || accelerometer || simulateNoiseSeed != nil
            || simulateActuator != nil
    }

    /// The plot's destination, checked before any work (nil: no --plot).
    func plotFile() throws(CLIError) -> OutputFile? {
        try plot.map { (path) throws(CLIError) in try OutputFile(path, purpose: "plot") }
    }

    /// Opens the device the options name. `actuator` is what the simulated board has on
    /// its outputs; `timing` how its clock runs. A one-line notice (the simulated board
    /// chosen because no board is plugged in) goes to standard error.
    func open(actuator: ActuatorProfile?, timing: SimulatedTiming = .virtual, link: SimulatedBridgeDevice.Link = .init())
        throws(CLIError) -> OpenedDevice
    {
        let catalog = DeviceCatalog(logger: logging.logger("hapbridge.devices"), adapterSettings: adapterSettings)
        // The physics on the outputs: the part in hand where it is not the profile's.
        let physics = try simulateActuator.map { (name) throws(CLIError) in try loadActuatorProfile(name) } ?? actuator
        var setup = SimulatedBoardSetup(
            actuator: physics, variant: variant.variant, supplyVolts: supply, fault: simulateFault, timing: timing, link: link)
        setup.accelerometer = accelerometer
        setup.accelerometerNoiseSeed = simulateNoiseSeed
        // A device named outright is refused before it is opened (an adapter's chip is
        // brought up as it opens); one the rule chose, once it is known.
        if let address, address != .simulated, simulatorOptionsGiven { throw Self.simulatorOnly(address) }
        let opened: OpenedDevice
        do { opened = try catalog.open(address, simulated: setup) } catch { throw CLIError(TerminalText.safe(error.description)) }
        if opened.address != .simulated, simulatorOptionsGiven {
            opened.transport.close()
            throw Self.simulatorOnly(opened.address)
        }
        if let notice = opened.notice { try? Console.err("note: \(notice)") }
        return opened
    }
}

extension SimulatedBoardSetup.Fault: ExpressibleByArgument {}

/// `--actuator PROFILE`: a name from Hardware/actuators or a path to a .json file.
public struct ActuatorOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Actuator profile: a name from Hardware/actuators (e.g. pmd-c10-100) or a path to your own .json.",
        valueName: "PROFILE"))
    public var actuator: String?

    public init() {}

    /// The profile, nil without --actuator; a profile that cannot be used is a
    /// failure at run time (one line, status 1), not a usage error.
    func load() throws(CLIError) -> ActuatorProfile? {
        try actuator.map { (argument) throws(CLIError) in try loadActuatorProfile(argument) }
    }
}

/// The most a profile file may hold: real ones are a few kB.
let maxProfileBytes = 1 << 20

/// A profile by name or path, every failure one line. A path that is a directory,
/// a device, a FIFO or an oversized file is refused before the loader reads it. The file
/// actually used is said on standard error when it is not the shipped one or hides
/// another of the same name (a copy in a parent directory, $HAPBRIDGE_ACTUATORS), and
/// the loader's warnings (a trailing comma) are shown there too.
func loadActuatorProfile(_ argument: String) throws(CLIError) -> ActuatorProfile {
    try locateActuatorProfile(argument).profile
}

/// The same, with the file it came from.
func locateActuatorProfile(_ argument: String) throws(CLIError) -> ActuatorProfileLoader.LoadedProfile {
    do { try InputFile.checkIfPresent(argument, limit: maxProfileBytes) } catch { throw CLIError("actuator profile: \(error)") }
    let loaded: ActuatorProfileLoader.LoadedProfile
    do { loaded = try ActuatorProfileLoader.locate(argument) } catch {
        guard case .notFound = error else { throw CLIError("\(error)") }
        let names = ActuatorProfileLoader.availableNames()
        throw CLIError("\(error)" + (names.isEmpty ? "" : "; available: \(names.joined(separator: ", "))"))
    }
    for warning in loaded.warnings.prefix(PatternSource.shownWarnings) { try? Console.err(TerminalText.safe(warning.description)) }
    if !loaded.shadowed.isEmpty {
        try? Console.err("note: actuator profile \(TerminalText.echo(argument)) from \(loaded.file), which hides " + loaded.shadowed.joined(separator: ", "))
    }
    return loaded
}

func format(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
