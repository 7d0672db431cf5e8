import DeviceInterface
import FileAccess
import Foundation
import JSON
import Measurements

/// A golden trace: one play's acceleration and stamped drive, saved by `hapbridge
/// measure --save-trace` so a later play (`hapbridge diff`, a `run` script) can be
/// compared with it (`TraceComparison`). The file is `hapbridge-trace/1` JSON
/// (docs/golden-traces.md has every field):
///
/// ```
/// {"schema": "hapbridge-trace/1", "pattern", "actuator", "device", "serialNumber",
///  "recorded" (ISO 8601), "source" ("sensor"/"model"), "sourceDevice", "axis",
///  "sampleRateHz", "lostSamples", "startMicroseconds" (board µs of the play's start),
///  "drive": [[µs from start, RTP amplitude −127…127]],
///  "samples": {"t": [µs from start], "g": [acceleration, g]}}
/// ```
///
/// Times are whole µs from the play's start (the pre-trigger's samples before it are
/// negative), so a file reads the same whatever the board's clock said.
public struct ReferenceTrace: Sendable, Equatable {
    public static let schema = "hapbridge-trace/1"

    public var pattern: String
    public var actuator: String
    public var device: String
    public var serialNumber: String?
    public var recorded: Date
    public var origin: AccelerationOrigin
    public var sourceDevice: String
    public var axis: AccelerationAxis?
    public var sampleRateHz: Double?
    public var lostSamples: Int
    public var startMicroseconds: UInt64
    /// (µs from start, amplitude).
    public var drive: [DriveStamp]
    public var samples: [AccelerationSample]

    /// The most bytes a trace file may hold: 2 million samples (25 minutes from a LIS3DH at
    /// 1344 Hz; a model's trace is one sample per physics step) at ~20 bytes each.
    public static let maxBytes = 48 << 20
    /// The most samples or drive stamps one file may hold.
    public static let maxSamples = 2_000_000
    /// |g| beyond this is no actuator's (a LIS3DH's widest range is ±16 g).
    public static let maxG = 1000.0
    /// The largest board time a file may hold, µs (2^53: exact as a JSON number; 285 years).
    static let maxMicroseconds = 9_007_199_254_740_992.0

    public init(
        pattern: String, actuator: String, device: String, serialNumber: String?, recorded: Date, origin: AccelerationOrigin,
        sourceDevice: String, axis: AccelerationAxis?, sampleRateHz: Double?, lostSamples: Int, startMicroseconds: UInt64,
        drive: [DriveStamp], samples: [AccelerationSample]
    ) {
        self.pattern = pattern
        self.actuator = actuator
        self.device = device
        self.serialNumber = serialNumber
        self.recorded = recorded
        self.origin = origin
        self.sourceDevice = sourceDevice
        self.axis = axis
        self.sampleRateHz = sampleRateHz
        self.lostSamples = lostSamples
        self.startMicroseconds = startMicroseconds
        self.drive = drive
        self.samples = samples
    }

    /// A play's trace as a reference; nil when it holds no acceleration or no start.
    public init?(trace: PlayTrace, pattern: String, actuator: String, device: String, recorded: Date = Date()) {
        guard let samples = trace.samples, !samples.isEmpty, let start = trace.startMicroseconds, let provenance = trace.provenance else { return nil }
        self.init(
            pattern: pattern, actuator: actuator, device: device, serialNumber: trace.boardSerial, recorded: recorded,
            origin: provenance.origin, sourceDevice: provenance.device, axis: provenance.axis, sampleRateHz: provenance.rateHz,
            lostSamples: provenance.lostSamples, startMicroseconds: start, drive: DriveStamp.from(trace.drive), samples: samples)
    }

    /// What `TraceComparison` compares.
    public var compared: ComparedTrace { ComparedTrace(samples: samples, startMicroseconds: startMicroseconds) }

    /// "sensor (LIS3DH, X axis, 470 samples at 1344 Hz)": the source as reports say it.
    public var sourceText: String {
        AccelerationProvenance(origin: origin, device: sourceDevice, samples: samples.count, rateHz: sampleRateHz, axis: axis).text
    }

    // MARK: Writing

    public var json: JSONValue {
        // Exact: board times are far below 2^53 µs.
        let start = Double(startMicroseconds)
        func relative(_ t: UInt64) -> JSONValue { .number(Double(t) - start) }
        return .object([
            (key: "schema", value: .string(Self.schema)),
            (key: "pattern", value: .string(pattern)),
            (key: "actuator", value: .string(actuator)),
            (key: "device", value: .string(device)),
            (key: "serialNumber", value: serialNumber.map(JSONValue.string) ?? .null),
            (key: "recorded", value: .string(ISO8601DateFormatter().string(from: recorded))),
            (key: "source", value: .string(origin.rawValue)),
            (key: "sourceDevice", value: .string(sourceDevice)),
            (key: "axis", value: axis.map { .string($0.name) } ?? .null),
            (key: "sampleRateHz", value: sampleRateHz.map { .number(($0 * 10).rounded() / 10) } ?? .null),
            (key: "lostSamples", value: .number(Double(lostSamples))),
            (key: "startMicroseconds", value: .number(Double(startMicroseconds))),
            (key: "drive", value: .array(drive.map { .array([relative($0.boardMicroseconds), .number(Double($0.amplitude))]) })),
            (
                key: "samples",
                value: .object([
                    (key: "t", value: .array(samples.map { relative($0.boardMicroseconds) })),
                    (key: "g", value: .array(samples.map { .number($0.g) })),
                ])
            ),
        ])
    }

    public var text: String { JSONWriter.string(json, pretty: false) + "\n" }

    // MARK: Reading

    /// Reads a trace file's bytes; `file` names it in every error.
    public init(bytes: [UInt8], file: String) throws(ReferenceTraceError) {
        let document: JSONParser.Document
        do {
            document = try JSONParser.parse(
                bytes, limits: .init(maxBytes: Self.maxBytes, maxDepth: 8, maxElements: 3 * Self.maxSamples + 64))
        } catch { throw ReferenceTraceError(file: file, path: "", rule: "not JSON: \(error)") }
        guard case .object(let fields) = document.value else {
            throw ReferenceTraceError(file: file, path: "", rule: "must be an object, not \(document.value.typeDescription)")
        }
        var seen = Set<String>()
        for (key, _) in fields {
            guard Self.keys.contains(key) else {
                throw ReferenceTraceError(file: file, path: key, rule: "unknown key (\(Self.schema) has \(Self.keys.joined(separator: ", ")))")
            }
            guard seen.insert(key).inserted else { throw ReferenceTraceError(file: file, path: key, rule: "given twice") }
        }
        func value(_ key: String) throws(ReferenceTraceError) -> JSONValue {
            guard let v = fields.first(where: { $0.key == key })?.value else { throw ReferenceTraceError(file: file, path: key, rule: "missing") }
            return v
        }
        func string(_ key: String, optional: Bool = false) throws(ReferenceTraceError) -> String? {
            let v = try value(key)
            if case .string(let s) = v { return s }
            if optional, case .null = v { return nil }
            throw ReferenceTraceError(file: file, path: key, rule: "must be a string\(optional ? " or null" : ""), not \(v.typeDescription)")
        }
        func number(_ v: JSONValue, _ path: String, _ range: ClosedRange<Double>, integer: Bool) throws(ReferenceTraceError) -> Double {
            guard case .number(let n) = v else { throw ReferenceTraceError(file: file, path: path, rule: "must be a number, not \(v.typeDescription)") }
            guard n.isFinite, range.contains(n) else {
                // The parser gives ±infinity for a number past a double's range.
                let shown = n.isFinite ? JSONWriter.format(n) : "a number past a double's range (\(n < 0 ? "-" : "")1.8e308)"
                throw ReferenceTraceError(file: file, path: path, rule: "must be within \(JSONWriter.format(range.lowerBound))…\(JSONWriter.format(range.upperBound)), not \(shown)")
            }
            guard !integer || n == n.rounded() else { throw ReferenceTraceError(file: file, path: path, rule: "must be a whole number, not \(JSONWriter.format(n))") }
            return n
        }
        let schema = try string("schema")
        guard schema == Self.schema else {
            throw ReferenceTraceError(file: file, path: "schema", rule: "must be \"\(Self.schema)\" (this hapbridge reads that version), not \(Echo.quoted(schema ?? ""))")
        }
        pattern = try string("pattern") ?? ""
        actuator = try string("actuator") ?? ""
        device = try string("device") ?? ""
        serialNumber = try string("serialNumber", optional: true)
        let recordedText = try string("recorded") ?? ""
        guard let date = ISO8601DateFormatter().date(from: recordedText) else {
            throw ReferenceTraceError(file: file, path: "recorded", rule: "must be an ISO 8601 date and time (2026-05-01T12:00:00Z), not \(Echo.quoted(recordedText))")
        }
        recorded = date
        let sourceText = try string("source") ?? ""
        guard let origin = AccelerationOrigin(rawValue: sourceText) else {
            throw ReferenceTraceError(file: file, path: "source", rule: "must be \"sensor\" or \"model\", not \(Echo.quoted(sourceText))")
        }
        self.origin = origin
        sourceDevice = try string("sourceDevice") ?? ""
        if let axisText = try string("axis", optional: true) {
            guard let axis = AccelerationAxis.allCases.first(where: { $0.name == axisText }) else {
                throw ReferenceTraceError(
                    file: file, path: "axis", rule: "must be \(AccelerationAxis.allCases.map { "\"\($0.name)\"" }.joined(separator: ", ")) or null, not \(Echo.quoted(axisText))")
            }
            self.axis = axis
        } else {
            axis = nil
        }
        let rate = try value("sampleRateHz")
        if case .null = rate { sampleRateHz = nil } else { sampleRateHz = try number(rate, "sampleRateHz", 0.001...1e7, integer: false) }
        lostSamples = Int(try number(try value("lostSamples"), "lostSamples", 0...Double(Self.maxSamples), integer: true))
        let start = try number(try value("startMicroseconds"), "startMicroseconds", 0...Self.maxMicroseconds, integer: true)
        startMicroseconds = UInt64(start)
        // A time from start, in µs, whose board time is within 0…2^53.
        func time(_ v: JSONValue, _ path: String) throws(ReferenceTraceError) -> UInt64 {
            let t = try number(v, path, -start...(Self.maxMicroseconds - start), integer: true)
            return UInt64(start + t)
        }
        guard case .array(let driveValues) = try value("drive") else {
            throw ReferenceTraceError(file: file, path: "drive", rule: "must be an array of [µs from start, amplitude]")
        }
        guard driveValues.count <= Self.maxSamples else {
            throw ReferenceTraceError(file: file, path: "drive", rule: "holds \(driveValues.count) stamps; the limit is \(Self.maxSamples)")
        }
        var drive: [DriveStamp] = []
        drive.reserveCapacity(driveValues.count)
        for (i, v) in driveValues.enumerated() {
            let path = "drive[\(i)]"
            guard case .array(let pair) = v, pair.count == 2 else {
                throw ReferenceTraceError(file: file, path: path, rule: "must be [µs from start, amplitude], not \(v.typeDescription)")
            }
            let t = try time(pair[0], path + "[0]")
            let amplitude = try number(pair[1], path + "[1]", -127...127, integer: true)
            if let last = drive.last, t < last.boardMicroseconds {
                throw ReferenceTraceError(file: file, path: path + "[0]", rule: "must not be earlier than the stamp before it")
            }
            drive.append(DriveStamp(boardMicroseconds: t, amplitude: Int8(amplitude)))
        }
        self.drive = drive
        guard case .object(let sampleFields) = try value("samples") else {
            throw ReferenceTraceError(file: file, path: "samples", rule: "must be an object {\"t\": [µs from start], \"g\": [g]}")
        }
        for (key, _) in sampleFields where key != "t" && key != "g" {
            throw ReferenceTraceError(file: file, path: "samples.\(key)", rule: "unknown key (samples has t and g)")
        }
        guard case .array(let ts)? = sampleFields.first(where: { $0.key == "t" })?.value else {
            throw ReferenceTraceError(file: file, path: "samples.t", rule: "must be an array of µs from start")
        }
        guard case .array(let gs)? = sampleFields.first(where: { $0.key == "g" })?.value else {
            throw ReferenceTraceError(file: file, path: "samples.g", rule: "must be an array of accelerations in g")
        }
        guard ts.count == gs.count else {
            throw ReferenceTraceError(file: file, path: "samples", rule: "t holds \(ts.count) times and g \(gs.count) values; they must pair up")
        }
        guard !ts.isEmpty else { throw ReferenceTraceError(file: file, path: "samples.t", rule: "must hold at least one sample") }
        guard ts.count <= Self.maxSamples else {
            throw ReferenceTraceError(file: file, path: "samples", rule: "holds \(ts.count) samples; the limit is \(Self.maxSamples)")
        }
        var samples: [AccelerationSample] = []
        samples.reserveCapacity(ts.count)
        for i in ts.indices {
            let t = try time(ts[i], "samples.t[\(i)]")
            if let last = samples.last, t <= last.boardMicroseconds {
                throw ReferenceTraceError(file: file, path: "samples.t[\(i)]", rule: "must be later than the sample before it")
            }
            let g = try number(gs[i], "samples.g[\(i)]", -Self.maxG...Self.maxG, integer: false)
            samples.append(AccelerationSample(boardMicroseconds: t, g: g))
        }
        self.samples = samples
    }

    static let keys = [
        "schema", "pattern", "actuator", "device", "serialNumber", "recorded", "source", "sourceDevice", "axis", "sampleRateHz", "lostSamples",
        "startMicroseconds", "drive", "samples",
    ]

    /// Reads a trace file, bounded by `maxBytes`.
    public static func read(_ path: FilePath, name: String) throws(ReferenceTraceError) -> ReferenceTrace {
        let bytes: [UInt8]
        do { bytes = try FileReader.read(path, limit: maxBytes) } catch { throw ReferenceTraceError(file: name, path: "", rule: error.problem.description) }
        return try ReferenceTrace(bytes: bytes, file: name)
    }
}

/// Why a trace file cannot be used: the file, the field (a JSON path: "samples.g[12]";
/// empty for the whole file) and the rule it breaks.
public struct ReferenceTraceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var path: String
    public var rule: String

    public init(file: String, path: String, rule: String) {
        self.file = file
        self.path = path
        self.rule = rule
    }

    public var description: String { path.isEmpty ? "\(file): \(rule)" : "\(file): \(path): \(rule)" }
}
