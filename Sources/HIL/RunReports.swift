import Bench
import Foundation
import JSON
import Measurements

/// The run's record as JSON (`hapbridge run --json`); as JUnit XML (`--junit`,
/// JUnitReport.swift) and OpenMetrics (`--metrics`, OpenMetricsReport.swift).
public enum RunReports {
    public static let schema = "hapbridge-hil-run/1"

    public static func json(_ r: RunRecord) -> String {
        func num(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
        func str(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        let bench = JSONValue.fields([
            "name": .string(r.bench.name), "file": .string(r.bench.file),
            "features": .array(r.bench.features.sorted().map { .string($0) }),
            "fixture": .fields(["sledMassGrams": num(r.bench.fixture.sledMassGrams), "mounting": str(r.bench.fixture.mounting)]),
        ])
        let devices = JSONValue.array(
            r.devices.map { d in
                .fields([
                    "name": .string(d.name), "address": .string(d.address), "actuator": .string(d.actuator), "serialNumber": str(d.serialNumber),
                    "firmwareVersion": str(d.firmwareVersion), "protocolVersion": str(d.protocolVersion), "chip": str(d.chip),
                    "supplyVolts": num(d.supplyVolts), "healthy": .bool(d.problem == nil), "problem": str(d.problem),
                ])
            })
        let tests = JSONValue.array(
            r.tests.map { t in
                .fields([
                    "suite": .string(t.suite), "file": .string(t.file), "name": .string(t.name), "device": .string(t.device),
                    "verdict": .string(t.verdict.rawValue), "message": str(t.message), "seconds": .number(t.seconds),
                    "attempts": .array(
                        t.attempts.map { a in
                            .fields([
                                "number": .number(Double(a.number)), "reason": .string(a.reason.rawValue), "verdict": .string(a.verdict.rawValue),
                                "message": str(a.message), "seconds": .number(a.seconds),
                                "steps": .array(a.steps.map { step($0) }),
                            ])
                        }),
                ])
            })
        let counts = JSONValue.object(Verdict.allCases.map { (key: $0.rawValue, value: JSONValue.number(Double(r.count($0)))) })
        return JSONWriter.string(
            .fields([
                "schema": .string(schema), "verdict": .string(r.verdict.rawValue), "aborted": str(r.aborted), "interrupted": str(r.interruption),
                "started": .string(timestamp(r.started)), "seconds": .number(r.seconds),
                "counts": counts, "bench": bench, "devices": devices, "tests": tests,
            ])) + "\n"
    }

    /// Where each device's own record goes beside the run's (`--json FILE` on a run
    /// over several devices): FILE with the device's name before its extension,
    /// `run.json` → `run.board-1.json` (`run` → `run.board-1`). The name is made
    /// file-safe as a lock file's is (letters, digits, '-', '_', '.'; others '_'); two
    /// devices whose names come out the same get `-2`, `-3` in the bench's order.
    public static func deviceRecordPaths(beside json: String, devices: [String]) -> [(device: String, path: String)] {
        let slash = json.lastIndex(of: "/")
        let base = slash.map { json[json.index(after: $0)...] } ?? json[...]
        let dot = base.lastIndex(of: ".").flatMap { $0 == base.startIndex ? nil : $0 }
        let stem = String(json[..<(dot ?? json.endIndex)]), ext = dot.map { String(json[$0...]) } ?? ""
        var used: Set<String> = []
        return devices.map { d in
            let safe = BoardLock.Key.fileSafe(d)
            var name = safe
            var n = 1
            while used.contains(name) {
                n += 1
                name = "\(safe)-\(n)"
            }
            used.insert(name)
            return (d, "\(stem).\(name)\(ext)")
        }
    }

    /// "2025-06-24T10:03:12.345Z".
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func step(_ s: StepResult) -> JSONValue {
        .fields([
            "index": .number(Double(s.index)), "step": .string(s.kind.rawValue), "label": .string(s.label),
            "verdict": .string(s.verdict.rawValue), "message": s.message.map { .string($0) } ?? .null, "seconds": .number(s.seconds),
            "measurements": .array(s.measurements.map { measurement($0) }),
            "figures": .array(s.figures.map { figure($0, source: s.figureSource) }),
            // Where the step's acceleration figures came from: sensor or model.
            "acceleration": s.accelerationProvenance.map { .object($0.jsonFields) } ?? .null,
        ])
    }

    /// A figure: its name, unit and value, and where it came from (`FigureSource.label`).
    static func figure(_ f: BenchMeasurement, source: FigureSource) -> JSONValue {
        .fields(["name": .string(f.name), "unit": .string(f.unit.rawValue), "value": .number(f.value), "source": .string(source.label)])
    }

    static func measurement(_ m: MeasuredResult) -> JSONValue {
        .fields([
            "name": .string(m.limit.name), "figure": .string(m.limit.figure.rawValue), "unit": .string(m.limit.unit.rawValue),
            "value": m.value.map { .number($0) } ?? .null, "low": m.limit.low.map { .number($0) } ?? .null,
            "high": m.limit.high.map { .number($0) } ?? .null, "marginal": m.limit.marginal.map { .number($0) } ?? .null,
            "verdict": .string(m.verdict.rawValue), "note": m.note.map { .string($0) } ?? .null,
        ])
    }
}

extension JSONValue {
    /// An object with its keys in the order written.
    fileprivate static func fields(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue { .object(pairs.map { (key: $0.key, value: $0.value) }) }
}

extension StepResult {
    /// Where a play, measure or sweep step's acceleration came from; nil for a step
    /// that recorded none.
    public var accelerationProvenance: AccelerationProvenance? { trace?.provenance ?? sweep?.provenance }
}
