import Bench
import FileAccess
import Measurements

/// The `compare` step: the pattern played and measured as a `measure` step plays it
/// (`StepPlay`), its trace compared with a golden reference saved by `hapbridge measure
/// --save-trace` (`TraceComparison`, as `hapbridge diff` does). The onset delta,
/// envelope error and peak delta are the step's figures (limits on them as on any
/// step's: `onset-delta`, `envelope-error`, `peak-delta`); a figure outside the step's
/// own limits (`compare: {onset, envelope, peak}`, else `TraceLimits.default`) FAILs it.
///
/// A play that ERRORs (late, stopped) is not compared: its trace is not the part's.
enum StepCompare {
    static func run(reference: String, pattern: String, limits: TraceLimits, on slot: DeviceSlot, scriptDirectory: String) async throws(StepProblem)
        -> StepOutcome
    {
        let golden: ReferenceTrace
        do { golden = try Self.reference(reference, relativeTo: scriptDirectory) } catch { throw .error(error.description) }
        var o = try await StepPlay.run(pattern, measuring: true, on: slot, scriptDirectory: scriptDirectory)
        // The play's own figures stay out: the step's figures are the comparison's.
        o.figures = []
        o.unmeasured = []
        guard o.verdict == .pass else { return o }
        guard let trace = o.trace, let samples = trace.samples, let start = trace.startMicroseconds else {
            o.verdict = .error
            o.message = "\(slot.spec.name) recorded no acceleration to compare (no accelerometer or simulated sled)"
            return o
        }
        let comparison: TraceComparison
        do { comparison = try TraceComparison(reference: golden.compared, trace: ComparedTrace(samples: samples, startMicroseconds: start), limits: limits) } catch {
            o.verdict = .error
            o.message = "\(reference): \(error)"
            return o
        }
        o.figures = comparison.measurements
        if let why = comparison.onsetUnmeasured { o.unmeasured = ["\(TraceComparison.onsetName): \(why)"] }
        if !comparison.passes {
            var outside: [String] = []
            if !comparison.onsetPasses {
                outside.append(comparison.onsetDeltaMilliseconds.map { "onset delta \(MeasurementUnit.milliseconds.format($0)) ms (limit ±\(Limit.format(limits.onsetMilliseconds)) ms)" } ?? "onset not measured (\(comparison.onsetUnmeasured ?? "?"))")
            }
            if !comparison.envelopePasses {
                outside.append("envelope error \(MeasurementUnit.decibels.format(comparison.envelopeErrorDB)) dB (limit \(Limit.format(limits.envelopeDB)) dB)")
            }
            if !comparison.peakPasses { outside.append("peak delta \(MeasurementUnit.decibels.format(comparison.peakDeltaDB)) dB (limit ±\(Limit.format(limits.peakDB)) dB)") }
            o.verdict = .fail
            o.message = "differs from \(reference): " + outside.joined(separator: ", ")
        }
        return o
    }

    /// The golden trace a step names, relative to the script's directory.
    static func reference(_ name: String, relativeTo directory: String) throws(ReferenceTraceError) -> ReferenceTrace {
        try ReferenceTrace.read(FilePath(HILRunner.path(name, relativeTo: directory)), name: name)
    }
}
