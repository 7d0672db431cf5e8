import Actuators
import ArgumentParser
import Bench
import Foundation
import JSON
import Measurements
import Plot

/// `hapbridge sweep --actuator PROFILE`: an LRA's open-loop frequency response
/// (`Bench.FrequencySweep` drives it, `Measurements.FrequencyResponse` fits it): f0,
/// the −3 dB points and Q, a magnitude plot, CSV and JSON with units.
public struct SweepCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Measure an LRA's open-loop frequency response: f0, the −3 dB points and Q, with a magnitude plot.",
        discussion: """
            The DRV2605L drives the LRA in open loop at each OL_LRA_PERIOD code from --from to --to (the codes' own \
            frequencies, 98.46 µs of period apart), at --level of the rated RMS voltage (OD_CLAMP set again at each \
            frequency so the RMS stays put); after --settle it records --window of acceleration and takes the \
            amplitude of the drive frequency's component (whole cycles; the square drive's harmonics drop out). The \
            response is g per drive volt; a second-order resonance fitted to it gives f0 and the loaded Q (the \
            mechanical Q lowered by the coil's back-EMF damping), and the −3 dB points are read off the fitted curve. \
            Needs an acceleration source (the simulated board's sled, or an accelerometer on the bench) and a \
            DRV2605L. --json prints one object: {"schema": "hapbridge-sweep/1", "device", "actuator", "source" ("sensor" or "model"), "sourceDevice", "samples", \
            "axis", "lostSamples", "losses" (a sensor's, as `measure` gives them), \
            "points": [{"frequencyHz", "accelerationG", "driveVoltsRMS", "gPerVolt"}], "resonance": {"f0Hz", "q", \
            "peakHz", "peakGPerVolt", "lowerHalfPowerHz", "upperHalfPowerHz", "bandwidthHz", "residualDB"} or null, \
            "unmeasured": [reason]}. Exits 1 when no resonance could be fitted.
            """)

    @OptionGroup public var actuator: ActuatorOption
    @OptionGroup public var device: DeviceOptions

    @OptionGroup public var accelerometer: AccelerometerAxisOption

    @Option(help: ArgumentHelp("Lowest frequency, Hz (default: 0.7 × the profile's resonance).", valueName: "HZ"))
    public var from: Double?

    @Option(help: ArgumentHelp("Highest frequency, Hz (default: 1.4 × the profile's resonance).", valueName: "HZ"))
    public var to: Double?

    @Option(help: ArgumentHelp("Drive level, a fraction of the rated RMS voltage (0 < level ≤ 1).", valueName: "FRACTION"))
    public var level: Double = 1

    @Option(help: ArgumentHelp("Driven before each recording so the response settles, ms.", valueName: "MS"))
    public var settle: Double = 150

    @Option(help: ArgumentHelp("Recorded at each frequency, ms.", valueName: "MS"))
    public var window: Double = 100

    @Option(help: ArgumentHelp("Write the points as CSV (frequency_hz, acceleration_g, drive_v_rms, g_per_v) to FILE.", valueName: "FILE"))
    public var csv: String?

    @Flag(help: "Print the response as one JSON object.")
    public var json = false

    public init() {}

    public func validate() throws {
        if actuator.actuator == nil { throw ValidationError("sweep needs --actuator PROFILE (an LRA: a name from Hardware/actuators or a .json path)") }
        if let from, !(from.isFinite && from > 0) { throw ValidationError("--from \(from): a frequency in Hz above 0") }
        if let to, !(to.isFinite && to > 0) { throw ValidationError("--to \(to): a frequency in Hz above 0") }
        if let from, let to, from >= to { throw ValidationError("--from \(from) is not below --to \(to)") }
        if !(level.isFinite && level > 0 && level <= 1) { throw ValidationError("--level \(level): a fraction of the rated voltage, above 0 and at most 1") }
        for (name, ms) in [("--settle", settle), ("--window", window)] where !(ms.isFinite && ms >= 1 && ms <= 10_000) {
            throw ValidationError("\(name) \(ms): milliseconds, 1...10000")
        }
    }

    public func run() async throws {
        Interruption.install()
        let plotFile = try device.plotFile()
        let csvFile = try csv.map { (path) throws(CLIError) in try OutputFile(path, purpose: "CSV") }
        guard let profile = try actuator.load() else { return }
        var options = FrequencySweep.Options()
        options.fromHz = from
        options.toHz = to
        options.level = level
        options.settleMicroseconds = UInt64((settle * 1000).rounded())
        options.windowMicroseconds = UInt64((window * 1000).rounded())
        var opened = try device.open(actuator: profile)
        opened.accelerometerAxis = accelerometer.axis
        let bench = try await BridgeBench.open(opened)
        let sweep: FrequencySweep
        do {
            sweep = try await FrequencySweep.run(on: bench, profile: profile, options: options) { i, n, f in
                try? Console.err(String(format: "sweep %d/%d: %.1f Hz", i + 1, n, f))
            }
        } catch {
            await bench.close()
            try Interruption.shared.exitIfInterrupted()
            throw CLIError("sweep: \(error)")
        }
        await bench.close()
        try Interruption.shared.exitIfInterrupted()

        let response = sweep.response
        if let csvFile {
            var text = "frequency_hz,acceleration_g,drive_v_rms,g_per_v\n"
            for p in response.points {
                text += String(format: "%.3f,%.6f,%.4f,%.6f\n", p.frequencyHz, p.accelerationG, p.driveVolts, p.gPerVolt)
            }
            try csvFile.write(text)
        }
        if json {
            try Console.write(JSONWriter.string(Self.json(sweep, device: bench.summary, profile: profile), pretty: false) + "\n", to: .output)
        } else {
            try Console.lines(Self.lines(sweep, device: bench.summary, profile: profile), to: .output)
        }
        if let plotFile {
            try plotFile.write(Self.plot(sweep, profile: profile, subtitle: bench.summary).svg())
            if !json { try Console.out("plot: \(plotFile.name)") }
        }
        if case .failure = response.resonance { throw ExitCode.failure }
    }

    static func lines(_ sweep: FrequencySweep, device: String, profile: ActuatorProfile) -> [String] {
        let r = sweep.response
        var out = [
            "device: \(device)", "actuator: \(profile.displayName)",
            "acceleration: \(sweep.sourceText); \(r.points.count) frequencies, open loop at \(String(format: "%.0f", sweep.options.level * 100)) % of \(String(format: "%.2f", profile.ratedVoltage)) V rms",
            "  frequency        acceleration   per volt",
        ]
        for p in r.points {
            out.append(String(format: "  %7.1f Hz  %11.4f g  %8.4f g/V", p.frequencyHz, p.accelerationG, p.gPerVolt))
        }
        switch r.resonance {
        case .success(let fit):
            out.append(String(format: "resonance f0: %.1f Hz (the profile says %.1f Hz)", fit.frequencyHz, profile.lra?.resonantFrequencyHz ?? 0))
            out.append(String(format: "Q (loaded, with the coil's back-EMF damping): %.2f (the profile's mechanical Q: %.1f)", fit.qualityFactor, profile.lra?.qualityFactor ?? 0))
            out.append(String(format: "peak: %.4f g/V at %.1f Hz", fit.peakGPerVolt, fit.peakHz))
            out.append("−3 dB points: \(Self.hz(fit.lowerHalfPowerHz)) and \(Self.hz(fit.upperHalfPowerHz))" + (fit.bandwidthHz.map { String(format: ", bandwidth %.1f Hz", $0) } ?? ""))
            out.append(String(format: "fit: %.2f dB RMS from the points", fit.residualDB))
        case .failure(let why):
            out.append("not measured: resonance: \(why)")
        }
        return out
    }

    static func hz(_ f: Double?) -> String { f.map { String(format: "%.1f Hz", $0) } ?? "outside the swept range" }

    static func json(_ sweep: FrequencySweep, device: String, profile: ActuatorProfile) -> JSONValue {
        let r = sweep.response
        func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
        let resonance: JSONValue
        var unmeasured: [JSONValue] = []
        switch r.resonance {
        case .success(let fit):
            resonance = .fields([
                "f0Hz": .number(fit.frequencyHz), "q": .number(fit.qualityFactor), "peakHz": .number(fit.peakHz),
                "peakGPerVolt": .number(fit.peakGPerVolt), "lowerHalfPowerHz": number(fit.lowerHalfPowerHz),
                "upperHalfPowerHz": number(fit.upperHalfPowerHz), "bandwidthHz": number(fit.bandwidthHz), "residualDB": .number(fit.residualDB),
            ])
        case .failure(let why):
            resonance = .null
            unmeasured.append(.string("resonance: \(why)"))
        }
        // "source": "sensor" or "model", its detail beside it (as `measure --json`).
        let source = sweep.provenance?.jsonFields ?? [(key: "source", value: .null)]
        let head: [(key: String, value: JSONValue)] = [
            (key: "schema", value: .string("hapbridge-sweep/1")), (key: "device", value: .string(device)),
            (key: "actuator", value: .string(profile.id)),
        ]
        guard case .object(let rest) = JSONValue.fields([
            "points": .array(
                r.points.map {
                    .fields([
                        "frequencyHz": .number($0.frequencyHz), "accelerationG": .number($0.accelerationG),
                        "driveVoltsRMS": .number($0.driveVolts), "gPerVolt": .number($0.gPerVolt),
                    ])
                }),
            "resonance": resonance, "unmeasured": .array(unmeasured),
        ]) else { return .null }
        return .object(head + source + rest)
    }

    /// Magnitude in dB re 1 g/V against frequency: the points, the fitted curve, f0 and
    /// the −3 dB points marked.
    static func plot(_ sweep: FrequencySweep, profile: ActuatorProfile, subtitle: String) -> Plot {
        let r = sweep.response
        func db(_ x: Double) -> Double { 20 * log10(max(x, 1e-9)) }
        let xs = r.points.map(\.frequencyHz)
        var series = [Plot.Series(name: "measured: \(sweep.sourceText)", color: Plot.Palette.blue, xs: xs, ys: r.points.map { db($0.gPerVolt) })]
        var annotations: [Plot.Annotation] = []
        if case .success(let fit) = r.resonance, let low = xs.first, let high = xs.last {
            let grid = (0...200).map { low + (high - low) * Double($0) / 200 }
            series.append(Plot.Series(name: String(format: "fit: f0 %.1f Hz, Q %.2f", fit.frequencyHz, fit.qualityFactor), color: Plot.Palette.orange, xs: grid, ys: grid.map { db(fit.gPerVolt(atHz: $0)) }, strokeWidth: 1))
            annotations.append(Plot.Annotation(x: fit.peakHz, y: db(fit.peakGPerVolt), label: String(format: "f0 %.1f Hz", fit.frequencyHz), color: Plot.Palette.vermillion))
            for f in [fit.lowerHalfPowerHz, fit.upperHalfPowerHz].compactMap({ $0 }) {
                annotations.append(Plot.Annotation(x: f, y: db(fit.peakGPerVolt) - 3, label: String(format: "−3 dB %.1f Hz", f), color: Plot.Palette.green))
            }
        }
        return Plot(
            title: "Open-loop frequency response: \(profile.displayName)", subtitle: subtitle, xLabel: "frequency (Hz)",
            yLabel: "acceleration per drive volt (dB re 1 g/V)", series: series, annotations: annotations)
    }
}
