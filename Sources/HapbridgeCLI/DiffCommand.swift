import ArgumentParser
import Bench
import Foundation
import JSON
import Measurements

/// `hapbridge diff REFERENCE TRACE`: a golden-trace comparison of two saved traces
/// (`measure --save-trace`): onset delta, envelope error and peak delta against limits
/// (`Measurements.TraceComparison`).
public struct DiffCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare a trace with a golden reference (both saved by `measure --save-trace`): onset delta, envelope error and peak delta against limits.",
        discussion: """
            Onset: from the play's start to the acceleration envelope first reaching 10 % of its own peak; the delta is \
            TRACE's onset − REFERENCE's, ms (a later start: more link latency, a slower actuator). Envelope error: the two \
            envelopes aligned at their onsets, each as a level in dB re REFERENCE's peak (floored at \
            \(Int(TraceComparison.floorDB)) dB), the RMS of their difference every \
            \(JSONWriter.format(TraceComparison.gridMicroseconds / 1000)) ms where either is above \
            \(Int(TraceComparison.spanDB)) dB: 0 for identical traces, 1 dB a level about 12 % off throughout (a weaker \
            drive, another resonance or damping, another actuator). Peak delta: the envelope's peak against REFERENCE's, \
            20·log10(trace/reference) dB and %. The envelope is read per half cycle as `measure` reads it. Default \
            limits: |onset| ≤ \(JSONWriter.format(TraceLimits.default.onsetMilliseconds)) ms, envelope ≤ \
            \(JSONWriter.format(TraceLimits.default.envelopeDB)) dB, |peak| ≤ \(JSONWriter.format(TraceLimits.default.peakDB)) dB \
            (\(ShippedFiles.document("docs/golden-traces.md")) says why). --json prints one object: {"schema": \
            "hapbridge-diff/1", "reference" and "trace": {"file" (null: standard input), "pattern", "actuator", "device", "serialNumber", \
            "recorded", "source", "sourceDevice"}, "figures": [{"name", "unit", "value", "limit", "verdict"}], "verdict": \
            "PASS"/"FAIL"}. Exit status: 0 every figure within its limit, 12 a figure outside it, 1 a file that cannot be \
            read or used (its name, the field and the rule are said) or a reference with no vibration to compare with (a trace with none FAILs), 2 a \
            malformed command line.
            """)

    @Argument(help: ArgumentHelp("The golden reference: a hapbridge-trace/1 file, or - for standard input.", valueName: "reference"))
    public var reference: String

    @Argument(help: ArgumentHelp("The trace to judge against it: a hapbridge-trace/1 file, or - for standard input.", valueName: "trace"))
    public var trace: String

    @Option(
        help: ArgumentHelp(
            "Limits, any of onset=MS,envelope=DB,peak=DB (comma-separated; those not given keep their defaults: onset=\(JSONWriter.format(TraceLimits.default.onsetMilliseconds)),envelope=\(JSONWriter.format(TraceLimits.default.envelopeDB)),peak=\(JSONWriter.format(TraceLimits.default.peakDB))).",
            valueName: "limits"))
    public var limits: String?

    @Flag(help: "Print the comparison as one JSON object.")
    public var json = false

    public init() {}

    public func validate() throws {
        if reference == "-" && trace == "-" { throw ValidationError("only one of REFERENCE and TRACE can be - (standard input)") }
        _ = try Self.parseLimits(limits)
    }

    /// `--limits`' text as limits; a usage error names the part and the rule.
    static func parseLimits(_ text: String?) throws(ValidationError) -> TraceLimits {
        var limits = TraceLimits.default
        guard let text else { return limits }
        var seen = Set<String>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair.first.map(String.init) ?? ""
            guard pair.count == 2 else {
                throw ValidationError("--limits: \(TerminalText.echo(String(part))) is not NAME=VALUE (onset=MS, envelope=DB, peak=DB)")
            }
            guard let value = Double(pair[1]), value.isFinite, value >= 0, value <= 1e6 else {
                throw ValidationError("--limits: \(TerminalText.echo(name))'s value must be a number from 0 to 1000000, not \(TerminalText.echo(String(pair[1])))")
            }
            guard seen.insert(name).inserted else { throw ValidationError("--limits: \(TerminalText.echo(name)) is given twice") }
            switch name {
            case "onset": limits.onsetMilliseconds = value
            case "envelope": limits.envelopeDB = value
            case "peak": limits.peakDB = value
            default: throw ValidationError("--limits: unknown limit \(TerminalText.echo(name)) (onset, envelope, peak)")
            }
        }
        return limits
    }

    public func run() throws {
        let limits = try Self.parseLimits(limits)
        let a = try Self.load(reference)
        let b = try Self.load(trace)
        let comparison: TraceComparison
        do { comparison = try TraceComparison(reference: a.compared, trace: b.compared, limits: limits) } catch {
            throw CLIError("cannot compare \(TerminalText.echo(trace)) with \(TerminalText.echo(reference)): \(error)")
        }
        let rows = Self.rows(comparison)
        if json {
            func side(_ t: ReferenceTrace, _ file: String) -> JSONValue {
                .object([
                    (key: "file", value: file == "-" ? .null : .string(file)), (key: "pattern", value: .string(t.pattern)), (key: "actuator", value: .string(t.actuator)),
                    (key: "device", value: .string(t.device)), (key: "serialNumber", value: t.serialNumber.map(JSONValue.string) ?? .null),
                    (key: "recorded", value: .string(ISO8601DateFormatter().string(from: t.recorded))),
                    (key: "source", value: .string(t.origin.rawValue)), (key: "sourceDevice", value: .string(t.sourceDevice)),
                ])
            }
            let object = JSONValue.object([
                (key: "schema", value: .string("hapbridge-diff/1")), (key: "reference", value: side(a, reference)), (key: "trace", value: side(b, trace)),
                (
                    key: "figures",
                    value: .array(
                        rows.map { row in
                            .object([
                                (key: "name", value: .string(row.name)), (key: "unit", value: .string(row.unit.rawValue)),
                                (key: "value", value: row.value.map(JSONValue.number) ?? .null), (key: "limit", value: row.limit.map(JSONValue.number) ?? .null),
                                (key: "verdict", value: row.passes.map { .string($0 ? "PASS" : "FAIL") } ?? .null),
                            ] + (row.why.map { [(key: "unmeasured", value: JSONValue.string($0))] } ?? [])
                            )
                        })
                ),
                (key: "verdict", value: .string(comparison.passes ? "PASS" : "FAIL")),
            ])
            try Console.write(JSONWriter.string(object, pretty: false) + "\n", to: .output)
        } else {
            func describe(_ t: ReferenceTrace, _ file: String) -> String {
                "\(Self.name(file)): \(TerminalText.safe(t.pattern)) on \(TerminalText.safe(t.actuator)), \(TerminalText.safe(t.device))"
                    + (t.serialNumber.map { " \(TerminalText.safe($0))" } ?? "") + ", \(TerminalText.safe(t.sourceText)), recorded \(ISO8601DateFormatter().string(from: t.recorded))"
            }
            var lines = ["reference: \(describe(a, reference))", "trace: \(describe(b, trace))"]
            if a.pattern != b.pattern { lines.append("note: the traces are of different patterns") }
            if a.origin != b.origin { lines.append("note: one trace is a sensor's and the other a model's: the figures compare two kinds of source") }
            func verdict(_ passes: Bool) -> String { passes ? "PASS" : "FAIL" }
            let c = comparison
            lines += [
                (c.onsetDeltaMilliseconds.map {
                    String(format: "onset delta: %+.3f ms (reference %.3f ms, trace %.3f ms; ", $0, c.referenceOnsetMilliseconds, c.onsetMilliseconds ?? 0)
                } ?? "onset delta: not measured, \(c.onsetUnmeasured ?? "") (reference \(String(format: "%.3f", c.referenceOnsetMilliseconds)) ms; ")
                    + "limit ±\(JSONWriter.format(limits.onsetMilliseconds)) ms): \(verdict(c.onsetPasses))",
                String(format: "envelope error: %.2f dB (over %d points; ", c.envelopeErrorDB, c.envelopePoints)
                    + "limit \(JSONWriter.format(limits.envelopeDB)) dB): \(verdict(c.envelopePasses))",
                String(format: "peak delta: %+.2f dB, %+.1f %% (reference %.3f g, trace %.3f g; ", c.peakDeltaDB, c.peakDeltaPercent, c.referencePeakG, c.peakG)
                    + "limit ±\(JSONWriter.format(limits.peakDB)) dB): \(verdict(c.peakPasses))",
                "verdict: \(comparison.passes ? "PASS" : "FAIL")",
            ]
            try Console.lines(lines, to: .output)
        }
        if !comparison.passes { throw ExitStatus.tracesDiffer.exitCode }
    }

    /// One figure with its limit and verdict (nil value: not measured, `why`; nil
    /// limit: the % beside the peak's dB, whose limit is on the dB).
    struct Row {
        var name: String
        var unit: MeasurementUnit
        var value: Double?
        var limit: Double?
        var passes: Bool?
        var why: String?
    }

    static func rows(_ c: TraceComparison) -> [Row] {
        [
            Row(name: TraceComparison.onsetName, unit: .milliseconds, value: c.onsetDeltaMilliseconds, limit: c.limits.onsetMilliseconds, passes: c.onsetPasses, why: c.onsetUnmeasured),
            Row(name: "envelope error", unit: .decibels, value: c.envelopeErrorDB, limit: c.limits.envelopeDB, passes: c.envelopePasses),
            Row(name: "peak delta", unit: .decibels, value: c.peakDeltaDB, limit: c.limits.peakDB, passes: c.peakPasses),
            Row(name: "peak delta %", unit: .percent, value: c.peakDeltaPercent),
        ]
    }

    /// A file as messages name it ("(standard input)" for -).
    static func name(_ path: String) -> String { path == "-" ? InputFile.standardInputName : TerminalText.echo(path) }

    /// Reads one trace file (or standard input), its failures as one line naming it.
    static func load(_ path: String) throws -> ReferenceTrace {
        let bytes: [UInt8]
        do { bytes = try InputFile.read(path, limit: ReferenceTrace.maxBytes) } catch { throw CLIError(error.description) }
        let name = Self.name(path)
        do { return try ReferenceTrace(bytes: bytes, file: name) } catch { throw CLIError(TerminalText.safe(error.description)) }
    }
}
