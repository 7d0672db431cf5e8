import Actuators
import ArgumentParser
import Bench
import Devices
import Foundation
import JSON
import Measurements
import SimulatedBridgeDevice

/// `hapbridge measure PATTERN`: plays a pattern once (as `play` does) and prints the
/// bench measurements of what the actuator did (`Measurements.PlayMeasurements`).
public struct MeasureCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Play a pattern once and measure the acceleration: peak and RMS (g), rise time 10→90 %, lag and stop time (ms).",
        discussion: """
            The device is chosen as for `play`. Peak and RMS are over the whole recording; rise time, lag and stop \
            time are of the drive's first step: from the stamp of the command that takes the drive up from 0 (lag: to \
            the acceleration envelope crossing 10 % of its settled level; rise: 10 % to 90 %), and from the stamp of the \
            command that brings it back to 0 (stop: to 10 % of the envelope's level at that stamp). The envelope is \
            read at each half cycle's amplitude (its largest sample; from a sensor's few samples a half cycle, a half \
            sine fitted to them). The recording runs \(Int(Self.tailSeconds * 1000)) ms past the pattern's \
            end so the ring-down is measured whole. A figure that cannot be measured (no accelerometer, no drive step, a \
            level within the sensor's noise) is listed with the reason. --json prints one object: {"schema": "hapbridge-measure/1", "device", \
            "actuator", "pattern", "source" ("sensor": an accelerometer on the bench measured every figure, or \
            "model": the actuator's model computed them), "sourceDevice" ("LIS3DH", "simulated sled"), "samples", \
            "sampleRateHz", "axis" ("x", "y", "z": --axis), "lostSamples" and "losses": [{"atMs", "samples", "cause"}] (a \
            sensor's: samples it took that never reached the host; a figure read across a hole is listed as unmeasured), \
            "driveSteps", "measurements": [{"name", "unit", "value"}], "unmeasured": [reason]}. \
            --save-trace FILE also saves the play as a golden trace (`\(ReferenceTrace.schema)` JSON: the acceleration samples \
            with their times from the play's start, their source, axis and rate, the stamped drive, the pattern, actuator, \
            device, board serial and date; \(ShippedFiles.document("docs/golden-traces.md"))), which `hapbridge diff` and a `run` \
            script's compare step compare later plays with. \
            Exit status as for `play`: 3 when the engine stopped before the pattern's end, 4 when it played late (a \
            command sent after its stamp, an underrun: the timings are not the actuator's alone), 1 when commands \
            never reached the chip.
            """)

    /// Recorded past the pattern's end: the free ring-down of the slowest shipped LRA
    /// (τ ≈ 20 ms) falls to 10 % in 47 ms; 200 ms leaves room for a slower part.
    static let tailSeconds = 0.2

    @Argument(help: "An .ahap or .haptic file, - for standard input, or a built-in haptic name (see `hapbridge library`).")
    public var pattern: String

    @Option(help: ArgumentHelp(ActuatorChoice.help, valueName: "PROFILE"))
    public var actuator: String?

    @OptionGroup public var device: DeviceOptions

    @OptionGroup public var accelerometer: AccelerometerAxisOption

    @OptionGroup public var reading: PatternReadingOptions

    @Flag(help: "Print the measurements as one JSON object (units as symbols: g, ms).")
    public var json = false

    @Option(
        name: .customLong("link-latency"),
        help: ArgumentHelp(
            "Simulated board only: its USB one-way latency in µs, 0 to \(PlayCommand.maxLinkLatencyMicroseconds) (default \(Self.defaultLinkLatency)), as for `play`.",
            valueName: "µs"))
    public var linkLatency: UInt64 = Self.defaultLinkLatency

    /// The simulated link's own default (`SimulatedBridgeDevice.Link`).
    static let defaultLinkLatency = SimulatedBridgeDevice.Link().latencyMicroseconds

    @Option(
        name: .customLong("save-trace"),
        help: ArgumentHelp("Save the play's acceleration and drive as a golden trace (\(ReferenceTrace.schema) JSON) to this file, for `hapbridge diff`.", valueName: "file"))
    public var saveTrace: String?

    public init() {}

    public func validate() throws {
        if let saveTrace {
            // The report goes to standard output; a trace there would run into it.
            guard saveTrace != "-", !OutputFile.sameDestination(saveTrace, "-") else {
                throw ValidationError("--save-trace needs a file: standard output carries the measurements")
            }
            if let plot = device.plot, OutputFile.sameDestination(saveTrace, plot) {
                throw ValidationError("--save-trace and --plot name one destination (\(TerminalText.echo(saveTrace))): give each its own file")
            }
        }
        guard linkLatency <= PlayCommand.maxLinkLatencyMicroseconds else {
            throw ValidationError("--link-latency is at most \(PlayCommand.maxLinkLatencyMicroseconds) µs, as for `play`")
        }
        if let address = device.address, address != .simulated, linkLatency != Self.defaultLinkLatency {
            throw ValidationError("--link-latency applies to the simulated board (--device sim)")
        }
    }

    public func run() async throws {
        Interruption.install()
        let plotFile = try device.plotFile()
        let traceFile = try saveTrace.map { (path) throws(CLIError) in try OutputFile(path, purpose: "trace") }
        let source = try PatternSource.resolve(pattern, curveTimes: reading.controlPointTimes)
        try source.printWarnings()
        let given = try actuator.map(locateActuatorProfile)
        var opened = try device.open(actuator: try ActuatorChoice.forOpening(given), link: .init(latencyMicroseconds: linkLatency))
        if opened.address != .simulated, linkLatency != Self.defaultLinkLatency {
            throw CLIError("--link-latency applies to the simulated board, not \(opened.address)")
        }
        opened.accelerometerAxis = accelerometer.axis
        let chosen = try await ActuatorChoice.decide(command: "measure", given: given, opened: opened)
        let profile = chosen.profile
        var options = PlaySession.Options(keepsCommands: true)
        options.sharpnessControl = reading.sharpnessControlScope
        options.logger = device.logging.logger("hapbridge.engine")
        let session = PlaySession(opened: opened, actuator: profile, options: options)
        Interruption.shared.onInterrupt { _ in session.stop(reason: Interruption.shared.reason ?? "interrupted") }
        do { try await session.start(source.loaded.pattern) } catch { throw CLIError("\(source.label): \(error)") }
        while try await !session.step().isFinished, Interruption.shared.signal == nil {}
        try await session.recordTail(seconds: Self.tailSeconds) { Interruption.shared.signal != nil }
        let result = try await session.finish(interruption: Interruption.shared.reason)
        try Interruption.shared.exitIfInterrupted()
        let measured = PlayMeasurements(trace: result.trace)

        let provenance = result.trace.provenance
        if json {
            // "source": "sensor" or "model" (null without acceleration), its detail beside it.
            let sourceFields = provenance?.jsonFields ?? [(key: "source", value: .null)]
            let object = JSONValue.object(
                [
                    (key: "schema", value: .string("hapbridge-measure/1")), (key: "device", value: .string(result.address.description)),
                    (key: "actuator", value: .string(profile.id)), (key: "pattern", value: .string(source.label)),
                ] + sourceFields + [
                    (key: "driveSteps", value: .number(Double(measured.driveSteps))),
                    (
                        key: "measurements",
                        value: .array(
                            measured.measurements.map {
                                .fields(["name": .string($0.name), "unit": .string($0.unit.rawValue), "value": .number($0.value)])
                            })
                    ),
                    (key: "unmeasured", value: .array(measured.unmeasured.map { .string($0.description) })),
                ])
            try Console.write(JSONWriter.string(object, pretty: false) + "\n", to: .output)
        } else {
            var lines = [
                "device: \(session.summary)", "actuator: \(chosen.line)",
                "pattern: \(source.label), \(session.drive.note)",
                "acceleration: \(provenance?.text ?? "none"); drive steps: \(measured.driveSteps)\(measured.driveSteps > 1 ? " (timings are the first's)" : "")",
            ]
            lines += measured.measurements.map(\.description)
            lines += measured.unmeasured.map { "not measured: \($0)" }
            try Console.lines(lines, to: .output)
        }
        if let traceFile {
            guard
                let reference = ReferenceTrace(
                    trace: result.trace, pattern: source.label, actuator: profile.id, device: result.address.description)
            else { throw CLIError("no trace to save to \(traceFile.name): \(result.address) recorded no acceleration (no accelerometer or simulated sled)") }
            try traceFile.write(reference.text)
            if !json { try Console.out("trace: \(traceFile.name)") }
        }
        if let plotFile {
            try plotFile.write(result.trace.plot(title: "hapbridge measure \(source.label)", subtitle: "\(profile.displayName) on \(session.summary)").svg())
            if !json { try Console.out("plot: \(plotFile.name)") }
        }
        if result.endedEarly { throw ExitStatus.incomplete.exitCode }
        let s = result.statistics
        if !result.deliverySettled {
            throw CLIError("the board did not account for every command it was sent (\(PlayCommand.delivery(result))): what the chip got is unknown")
        }
        if let lost = result.undeliveredCommands, lost > 0 {
            throw CLIError("\(lost) of the \(s.commandsSent) commands sent never reached the chip (the board ran \(s.commandsRun ?? 0))")
        }
        // A late drive makes late figures: the same rule as `play`.
        if result.playedLate {
            try Console.err("played late: \(PlayCommand.lateness(s)); the timings above are not the actuator's alone")
            throw ExitStatus.playedLate.exitCode
        }
    }
}
