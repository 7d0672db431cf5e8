import Actuators
import ArgumentParser
import Bench
import DRV2605
import Devices

/// `hapbridge rom EFFECT [--actuator PROFILE]`
public struct ROMCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rom",
        abstract: "Play one of the DRV2605's 123 ROM library effects and report how it came out.",
        discussion: """
            EFFECT is a number (1-123) or a name ("strong click 100%", "buzz 1"); --list prints them all. \
            The chip is brought up and auto-calibrated for the actuator (--actuator; without it as for `play`: the simulated board's own, a board's stored calibration's, else nothing is driven) first. On the simulated device the \
            effect's waveform is synthesised from its name (TI publishes names, not waveforms).
            """)

    @Argument(help: "Effect number 1-123 or name (case and spaces ignored).")
    public var effect: String?

    @Flag(help: "List the ROM effects and exit.")
    public var list = false

    @Option(help: "Library: auto (LRA library for an LRA; ERM library B closed loop, A open loop), lra, a, b, c, d, e or f.")
    public var library: String = "auto"

    @Flag(inversion: .prefixedNo, help: "Auto-calibrate before playing (closed loop needs it to hit the rated level).")
    public var calibrate = true

    @Option(help: ArgumentHelp(ActuatorChoice.help, valueName: "PROFILE"))
    public var actuator: String?
    @OptionGroup public var device: DeviceOptions

    public init() {}

    static let libraries: [String: ROMLibrary] = ["lra": .lra, "a": .ermA, "b": .ermB, "c": .ermC, "d": .ermD, "e": .ermE, "f": .ermF]

    public func validate() throws {
        if list { return }
        guard let effect else { throw ValidationError("give an EFFECT (1-123 or a name), or --list") }
        guard ROMEffect.lookup(effect) != nil else { throw ValidationError("no ROM effect '\(TerminalText.echo(effect))'; see hapbridge rom --list") }
        guard library == "auto" || Self.libraries[library.lowercased()] != nil else {
            throw ValidationError("--library must be auto, lra, a, b, c, d, e or f")
        }
    }

    public func run() async throws {
        if list {
            try Console.lines(ROMEffect.all.map { "\(String($0.id.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0))\($0.name)" }, to: .output)
            return
        }
        guard let effectText = effect, let rom = ROMEffect.lookup(effectText) else { return }
        Interruption.install()
        let plot = try device.plotFile()
        let given = try actuator.map(locateActuatorProfile)
        let lib = library == "auto" ? nil : Self.libraries[library.lowercased()]
        let opened = try device.open(actuator: try ActuatorChoice.forOpening(given))
        let chosen = try await ActuatorChoice.decide(command: "rom \(rom.id.rawValue)", given: given, opened: opened)
        chosen.noteIfStored()
        let profile = chosen.profile
        let bench = try await BridgeBench.open(opened)
        var report = await Self.play(rom, library: lib, calibrateFirst: calibrate, on: bench, profile: profile)
        await bench.close()
        report.noteInterruption()
        try report.finish(plot: plot, title: "ROM effect \(rom.id.rawValue): \(rom.name)", subtitle: "\(profile.displayName), \(bench.summary)")
    }

    /// The procedure on any device (`BenchProcedures.playROM`). `library` nil: the one
    /// the profile's settings choose (LRA library; ERM B closed loop, A open loop).
    public static func play<D: HardwareDevice>(_ rom: ROMEffect, library: ROMLibrary?, calibrateFirst: Bool, on device: D, profile: ActuatorProfile) async -> HardwareReport {
        await BenchProcedures.playROM(rom, library: library, calibrateFirst: calibrateFirst, on: device, profile: profile)
    }
}
