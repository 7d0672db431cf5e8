import Measurements

/// The figures a script can put limits on: the id a script names, the steps that
/// measure it, its unit, and the name the Measurements module gives it.
public enum Figure: String, Sendable, CaseIterable {
    case peak, rms, rise, lag, stop
    case passRate = "pass-rate"
    case calCompMin = "a-cal-comp-min", calCompMax = "a-cal-comp-max"
    case calBEMFMin = "a-cal-bemf-min", calBEMFMax = "a-cal-bemf-max"
    case bemfGainMin = "bemf-gain-min", bemfGainMax = "bemf-gain-max"
    /// The resonance: from LRA_PERIOD on `diagnose` (closed loop, the chip's own
    /// tracking), or fitted to the open-loop response on `sweep`.
    case f0
    /// The sweep's loaded quality factor and its −3 dB bandwidth.
    case q, bandwidth
    /// A `compare` step's figures against its golden reference (`TraceComparison`).
    case onsetDelta = "onset-delta", envelopeError = "envelope-error", peakDelta = "peak-delta"

    /// The step kinds that measure it.
    public var steps: [StepKind] {
        switch self {
        case .peak, .rms, .rise, .lag, .stop: [.measure]
        case .passRate, .calCompMin, .calCompMax, .calBEMFMin, .calBEMFMax, .bemfGainMin, .bemfGainMax: [.calibrate]
        case .f0: [.diagnose, .sweep]
        case .q, .bandwidth: [.sweep]
        case .onsetDelta, .envelopeError, .peakDelta: [.compare]
        }
    }

    /// `BenchMeasurement.name` of the figure as the step of `kind` produces it (f0 is
    /// named for how it was measured: the two ways differ by design, and a record
    /// should say which one a value came from).
    public func measurementName(in kind: StepKind) -> String {
        switch (self, kind) {
        case (.f0, .sweep): "resonance f0 (sweep fit)"
        default: measurementName
        }
    }

    /// `BenchMeasurement.name` of the figure as its first step kind produces it.
    public var measurementName: String {
        switch self {
        case .peak: "peak acceleration"
        case .rms: "RMS acceleration"
        case .rise: "rise time 10→90 %"
        case .lag: "lag (drive stamp → motion onset)"
        case .stop: "stop time (to 10 %)"
        case .passRate: "auto-calibration pass rate"
        case .calCompMin: "A_CAL_COMP min"
        case .calCompMax: "A_CAL_COMP max"
        case .calBEMFMin: "A_CAL_BEMF min"
        case .calBEMFMax: "A_CAL_BEMF max"
        case .bemfGainMin: "BEMF_GAIN min"
        case .bemfGainMax: "BEMF_GAIN max"
        case .f0: "resonance f0"
        case .q: "Q (loaded)"
        case .bandwidth: "−3 dB bandwidth"
        case .onsetDelta: TraceComparison.onsetName
        case .envelopeError: TraceComparison.envelopeName
        case .peakDelta: TraceComparison.peakName
        }
    }

    public var unit: MeasurementUnit {
        switch self {
        case .peak, .rms: .g
        case .rise, .lag, .stop: .milliseconds
        case .passRate: .percent
        case .calCompMin, .calCompMax, .calBEMFMin, .calBEMFMax, .bemfGainMin, .bemfGainMax: .registerCode
        case .f0, .bandwidth: .hertz
        case .q: .one
        case .onsetDelta: .milliseconds
        case .envelopeError, .peakDelta: .decibels
        }
    }
}
