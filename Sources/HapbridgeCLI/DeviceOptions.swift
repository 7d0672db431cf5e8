import Actuators
import ArgumentParser
import DRV2605
import DRV2605Model
import Foundation

/// Options every hardware command shares: which device, how to simulate it, where to plot.
public struct DeviceOptions: ParsableArguments {
    public enum DeviceKind: String, ExpressibleByArgument, CaseIterable, Sendable {
        case simulated
    }

    public enum ChipVariant: String, ExpressibleByArgument, CaseIterable, Sendable {
        case drv2605l, drv2605
        var variant: DeviceVariant { self == .drv2605 ? .drv2605 : .drv2605L }
    }

    /// Faults the simulated device can be told to have, to see how the bench reports them.
    public enum SimulatedFault: String, ExpressibleByArgument, CaseIterable, Sendable {
        case none, open, short, absent
        /// An actuator of the other type on the outputs (LRA profile, ERM wired, or back).
        case wrongType = "wrong-type"
        case overTemperature = "over-temperature"
        case overCurrent = "over-current"
    }

    @Option(help: "Device to use. Only 'simulated' (the chip model) exists until a transport is added.")
    public var device: DeviceKind = .simulated

    @Option(help: "Simulated chip: drv2605l or drv2605.")
    public var variant: ChipVariant = .drv2605l

    @Option(help: "Simulated supply voltage VDD in volts (2.5...5.5).")
    public var supply: Double = 5.0

    @Option(name: .customLong("simulate-fault"), help: "Simulated device only: none, open, short, absent, wrong-type (the other actuator type wired), over-temperature or over-current.")
    public var simulateFault: SimulatedFault = .none

    @Option(help: PlotOption.help)
    public var plot: String?

    public init() {}

    public func validate() throws {
        guard (2.5...5.5).contains(supply) else { throw ValidationError("--supply must be between 2.5 and 5.5 V (the DRV2605's VDD range), not \(supply)") }
        try PlotOption.validate(plot)
    }

    /// The plot's destination, checked before any work (nil: no --plot).
    func plotFile() throws(CLIError) -> OutputFile? {
        try plot.map { (path) throws(CLIError) in try OutputFile(path, purpose: "plot") }
    }

    /// Builds the device. `profile` is the actuator on the simulated outputs (nil: nothing attached).
    func makeSimulatedDevice(profile: ActuatorProfile?) -> SimulatedDevice {
        let load: Load
        switch simulateFault {
        case .open: load = .open
        case .short: load = .shorted
        case .wrongType:
            let other = profile.map { $0.kind == .lra ? Self.standInERM : Self.standInLRA } ?? Self.standInERM
            load = .actuator(Actuator(profile: other))
        default: load = profile.map { .actuator(Actuator(profile: $0)) } ?? .open
        }
        let device = SimulatedDevice(variant: variant.variant, load: load, supplyVolts: supply)
        switch simulateFault {
        case .absent: device.chip.isPresent = false
        case .overTemperature: device.chip.inject(.overTemperature)
        case .overCurrent: device.chip.inject(.overCurrent)
        default: break
        }
        return device
    }
}

extension DeviceOptions {
    /// Built-in stand-ins for `--simulate-fault wrong-type` (no file lookup needed).
    static let standInERM = ActuatorProfile(
        id: "stand-in-erm", maker: "generic", partNumber: "10 mm coin ERM", kind: .erm, ratedVoltage: 3, maxVoltage: 3.6,
        coilResistanceOhms: 30, ratedAccelerationG: 0.8, erm: .init(ratedSpeedRPM: 10_000, timeConstantMilliseconds: 40),
        source: .init(document: "stand-in for fault simulation"))
    static let standInLRA = ActuatorProfile(
        id: "stand-in-lra", maker: "generic", partNumber: "10 mm coin LRA", kind: .lra, ratedVoltage: 2, maxVoltage: 2.5,
        coilResistanceOhms: 25, ratedAccelerationG: 0.7, lra: .init(resonantFrequencyHz: 175, qualityFactor: 12, movingMassGrams: 2),
        source: .init(document: "stand-in for fault simulation"))
}

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
/// a device, a FIFO or an oversized file is refused before the loader reads it.
func loadActuatorProfile(_ argument: String) throws(CLIError) -> ActuatorProfile {
    do { try InputFile.checkIfPresent(argument, limit: maxProfileBytes) } catch { throw CLIError("actuator profile: \(error)") }
    do { return try ActuatorProfileLoader.resolve(argument) } catch {
        guard case .notFound = error else { throw CLIError("\(error)") }
        let names = ActuatorProfileLoader.availableNames()
        throw CLIError("\(error)" + (names.isEmpty ? "" : "; available: \(names.joined(separator: ", "))"))
    }
}

func format(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
func hexByte(_ b: UInt8) -> String { String(format: "0x%02X", b) }
