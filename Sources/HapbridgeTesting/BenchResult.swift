import Bench
import HIL
import Measurements

/// What one step measured: every figure with its unit, each limit's verdict, and the
/// step's own (the worst of them; PASS when there were no limits and it ran).
public struct BenchResult: Sendable, CustomStringConvertible {
    /// The step as the runner recorded it (what the JSON record holds).
    public let step: StepResult

    public init(step: StepResult) { self.step = step }

    /// "measure ios.impact.heavy".
    public var label: String { step.label }
    public var verdict: Verdict { step.verdict }
    /// Why it is not PASS (the first limit outside, the procedure's FAIL).
    public var message: String? { step.message }
    /// PASS or MARGINAL: inside every limit (a MARGINAL is close to one).
    public var passed: Bool { verdict == .pass || verdict == .marginal }
    /// Every figure measured, limited or not (value and unit).
    public var figures: [BenchMeasurement] { step.figures }
    /// Each limit with its measured value and verdict.
    public var measurements: [MeasuredResult] { step.measurements }
    /// The frequency response of a sweep step (the points and the fit).
    public var sweep: FrequencySweep? { step.sweep }

    /// A figure by its id (`result[.rise]`), as this step measured it; nil when it did
    /// not (not this step's kind, or not measurable: `description` says why).
    public subscript(_ figure: Figure) -> BenchMeasurement? {
        let name = figure.measurementName(in: step.kind)
        return figures.first { $0.name == name }
    }

    /// The value of a figure in its unit, or nil.
    public func value(_ figure: Figure) -> Double? { self[figure]?.value }

    /// "measure ios.impact.heavy: PASS" then a line per limit ("rise time = 10.910 ms
    /// [x ≤ 20 ms] PASS") and per figure: what a failed `#expect` should print.
    public var description: String {
        var lines = ["\(label): \(verdict.rawValue)\(message.map { " — \($0)" } ?? "")"]
        for m in measurements {
            let v = m.value.map { "\(m.limit.unit.format($0))\(m.limit.unit.suffix)" } ?? "not measured (\(m.note ?? "?"))"
            lines.append("  \(m.limit.name) = \(v) [\(m.limit.text)] \(m.verdict.rawValue)")
        }
        for f in figures { lines.append("  \(f.name): \(f.unit.format(f.value))\(f.unit.suffix)") }
        return lines.joined(separator: "\n")
    }
}
