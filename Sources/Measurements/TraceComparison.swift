import AccelerationData
import Foundation

/// One recording of a play as a golden-trace comparison reads it: the acceleration on
/// board time and the board time the play started at (the host's start of the pattern),
/// which every time in the comparison is counted from.
public struct ComparedTrace: Sendable, Equatable {
    public var samples: [AccelerationSample]
    /// Board µs of the play's start: onset is counted from here, so a later first drive
    /// (more link latency, a slower start) shows as a later onset.
    public var startMicroseconds: UInt64

    public init(samples: [AccelerationSample], startMicroseconds: UInt64) {
        self.samples = samples
        self.startMicroseconds = startMicroseconds
    }
}

/// How far a trace may stray from its reference before the comparison FAILs.
public struct TraceLimits: Sendable, Equatable {
    /// |onset delta|, ms.
    public var onsetMilliseconds: Double
    /// Envelope error, dB (`TraceComparison.envelopeErrorDB`).
    public var envelopeDB: Double
    /// |peak delta|, dB.
    public var peakDB: Double

    public init(onsetMilliseconds: Double = Self.default.onsetMilliseconds, envelopeDB: Double = Self.default.envelopeDB, peakDB: Double = Self.default.peakDB) {
        self.onsetMilliseconds = onsetMilliseconds
        self.envelopeDB = envelopeDB
        self.peakDB = peakDB
    }

    /// The defaults, chosen from the figures the simulated board gives
    /// (docs/golden-traces.md has the table): a LIS3DH's noise over 20 runs of one
    /// pattern moves onset by ≤ 0.2 ms, the envelope by ≤ 0.3 dB and the peak by ≤ 0.2 dB,
    /// while each fault the tests inject moves one figure past these. 1 dB is also about
    /// the smallest vibration level change a person notices (the just-noticeable
    /// difference of vibrotactile amplitude is 1–2 dB).
    public static let `default` = TraceLimits(onsetMilliseconds: 1.0, envelopeDB: 1.0, peakDB: 1.0, checked: ())

    private init(onsetMilliseconds: Double, envelopeDB: Double, peakDB: Double, checked: Void) {
        self.onsetMilliseconds = onsetMilliseconds
        self.envelopeDB = envelopeDB
        self.peakDB = peakDB
    }
}

/// A trace against its reference (a golden trace): when the motion starts, how its
/// envelope's level follows the reference's, and how strong its peak is. Pure: over the
/// samples, no device.
///
/// Definitions (the help of `hapbridge diff` and docs/golden-traces.md say the same):
/// - **Onset**: from the play's start to the acceleration envelope (`Envelope`) first
///   reaching `ResponseTimes.onsetFraction` (10 %) of its own peak. Onset delta = the
///   trace's onset − the reference's, ms.
/// - **Envelope error**: the two envelopes aligned at their onsets, each as a level
///   in dB re the reference's peak, floored at `floorDB` (−40 dB: below it, a sensor's
///   noise); the RMS of their difference over every `gridMicroseconds` where either is
///   above `spanDB` (−20 dB re the reference's peak: where the vibration is felt), dB.
///   0 for identical traces; 1 dB is a level 12 % off throughout.
/// - **Peak delta**: the envelope's peak against the reference's, 20·log10(trace/ref) dB
///   and (trace/ref − 1)·100 %. The envelope's, not the largest sample's, so a sensor's
///   noise on one sample does not move it.
public struct TraceComparison: Sendable, Equatable {
    /// Where the envelope error is taken: either envelope above this level re the
    /// reference's peak, dB.
    public static let spanDB = -20.0
    /// The level every envelope value is floored at before the difference, dB re the
    /// reference's peak (a ratio to 0 has no level).
    public static let floorDB = -40.0
    /// The envelope is compared every this many µs (well under a half cycle of any LRA
    /// here, so the exponential segments between lobes are followed).
    public static let gridMicroseconds = 250.0
    /// The longest span the two recordings may cover together, s: 2.4 million grid
    /// points, a few seconds of work; a pattern worth a golden trace lasts seconds.
    public static let maxSpanSeconds = 600.0

    public var referenceOnsetMilliseconds: Double
    /// The trace's onset; nil where its envelope never rises above a sensor's noise to
    /// 10 % of its peak (no vibration, or too weak to time): the onset then FAILs.
    public var onsetMilliseconds: Double?
    public var referencePeakG: Double
    /// The trace's envelope peak (0: no vibration at all).
    public var peakG: Double
    /// Envelope error, dB (≥ 0).
    public var envelopeErrorDB: Double
    /// Grid points the envelope error was taken over.
    public var envelopePoints: Int
    public var limits: TraceLimits

    public var onsetDeltaMilliseconds: Double? { onsetMilliseconds.map { $0 - referenceOnsetMilliseconds } }
    /// 20·log10(trace/reference), the trace's peak floored at `floorDB` (a trace with no
    /// vibration is −40 dB, not −∞).
    public var peakDeltaDB: Double { max(20 * Foundation.log10(peakG / referencePeakG), Self.floorDB) }
    public var peakDeltaPercent: Double { (peakG / referencePeakG - 1) * 100 }

    public var onsetPasses: Bool { onsetDeltaMilliseconds.map { abs($0) <= limits.onsetMilliseconds } ?? false }
    public var envelopePasses: Bool { envelopeErrorDB <= limits.envelopeDB }
    public var peakPasses: Bool { abs(peakDeltaDB) <= limits.peakDB }
    public var passes: Bool { onsetPasses && envelopePasses && peakPasses }

    /// Compares `trace` with `reference`. Throws only when the reference cannot serve
    /// (no samples, no vibration, an onset within its sensor's noise); a trace that
    /// does not vibrate is compared, and FAILs.
    public init(reference: ComparedTrace, trace: ComparedTrace, limits: TraceLimits = .default) throws(MeasurementError) {
        let name = "the reference's onset"
        let a = Self.shape(reference)
        guard let aPeak = a.peak else { throw .noAcceleration(measurement: name) }
        guard let aOnset = try a.onset(name) else {
            throw .levelNotReached(measurement: name, levelG: ResponseTimes.onsetFraction * aPeak, afterMilliseconds: Double(reference.startMicroseconds) / 1000)
        }
        let b = Self.shape(trace)
        let bOnset: Double? = b.peak == nil ? nil : (try? b.onset("the trace's onset")) ?? nil
        referenceOnsetMilliseconds = (aOnset - Double(reference.startMicroseconds)) / 1000
        onsetMilliseconds = bOnset.map { ($0 - Double(trace.startMicroseconds)) / 1000 }
        referencePeakG = aPeak
        peakG = b.peak ?? 0
        self.limits = limits
        // Aligned at the onsets (at the starts where the trace has none): the trace's
        // time t + shift is the reference's.
        let shift = bOnset.map { aOnset - $0 } ?? (Double(reference.startMicroseconds) - Double(trace.startMicroseconds))
        let floor = aPeak * Foundation.pow(10, Self.floorDB / 20)
        let span = aPeak * Foundation.pow(10, Self.spanDB / 20)
        func level(_ g: Double) -> Double { 20 * Foundation.log10(max(g, floor) / aPeak) }
        let aPoints = a.envelope.points, bPoints = b.envelope.points
        var from = Double(aPoints[0].boardMicroseconds), to = Double(aPoints[aPoints.count - 1].boardMicroseconds)
        if let first = bPoints.first, let last = bPoints.last {
            from = min(from, Double(first.boardMicroseconds) + shift)
            to = max(to, Double(last.boardMicroseconds) + shift)
        }
        guard to - from <= Self.maxSpanSeconds * 1e6 else {
            throw .spanTooLong(measurement: "envelope error", seconds: (to - from) / 1e6, limitSeconds: Self.maxSpanSeconds)
        }
        var sum = 0.0, n = 0
        var t = from
        while t <= to {
            let ga = a.envelope.covers(microseconds: t) ? a.envelope.value(atMicroseconds: t) : 0
            let gb = b.envelope.covers(microseconds: t - shift) ? b.envelope.value(atMicroseconds: t - shift) : 0
            if ga >= span || gb >= span {
                let d = level(gb) - level(ga)
                sum += d * d
                n += 1
            }
            t += Self.gridMicroseconds
        }
        envelopeErrorDB = n > 0 ? (sum / Double(n)).squareRoot() : 0
        envelopePoints = n
    }

    /// A trace's envelope, its peak (nil: no vibration) and how to find its onset (board
    /// µs; nil where the envelope never reaches 10 % of the peak; a throw where that
    /// level is within the sensor's noise).
    static func shape(_ trace: ComparedTrace) -> (envelope: Envelope, peak: Double?, onset: (String) throws(MeasurementError) -> Double?) {
        let envelope = Envelope(trace.samples)
        guard let peak = envelope.points.map(\.g).max(), peak > 0, peak.isFinite else { return (envelope, nil, { _ in nil }) }
        let level = ResponseTimes.onsetFraction * peak
        return (
            envelope, peak,
            { (name: String) throws(MeasurementError) -> Double? in
                try NoiseFloor.check(level, in: trace.samples, measurement: name)
                return envelope.firstCrossing(level, rising: true, fromMicroseconds: Double(envelope.points[0].boardMicroseconds))
            }
        )
    }

    public static let onsetName = "onset delta"
    public static let envelopeName = "envelope error"
    public static let peakName = "peak delta"
    /// Why the trace's onset was not measured (nil: it was): the trace's envelope never
    /// rose above the sensor's noise to 10 % of its peak, or it did not vibrate.
    public var onsetUnmeasured: String? {
        guard onsetMilliseconds == nil else { return nil }
        return peakG > 0 ? "the trace's envelope does not rise to 10 % of its peak clear of the sensor's noise" : "the trace does not vibrate"
    }

    /// The figures as bench measurements, in the order reports list them (the onset
    /// delta left out where the trace's onset was not measured: `onsetUnmeasured`).
    public var measurements: [BenchMeasurement] {
        [
            onsetDeltaMilliseconds.map { BenchMeasurement(name: Self.onsetName, unit: .milliseconds, value: $0) },
            BenchMeasurement(name: Self.envelopeName, unit: .decibels, value: envelopeErrorDB),
            BenchMeasurement(name: Self.peakName, unit: .decibels, value: peakDeltaDB),
            BenchMeasurement(name: "peak delta %", unit: .percent, value: peakDeltaPercent),
        ].compactMap { $0 }
    }
}
