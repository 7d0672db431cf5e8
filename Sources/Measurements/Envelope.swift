import AccelerationData
import Foundation

/// The amplitude envelope of a vibration: one point per half cycle (a lobe, between
/// two zero crossings), at the lobe's amplitude, joined by exponential segments
/// (straight lines on a log scale; linear to and from 0).
///
/// Why lobes and not a sliding-window maximum: a window lags or leads the envelope by
/// up to half its width (≈ 3 ms for a 175 Hz LRA, the size of the figures measured
/// here), while a lobe's amplitude lies on the envelope, so crossings interpolated
/// between lobes are off by much less than a half cycle whenever the envelope changes
/// little within one half cycle. Works for any carrier (an LRA at resonance, an ERM
/// whose rotation speeds up).
///
/// A lobe's amplitude: where it has `denseLobeSamples` samples or more (a model's
/// trace), its largest sample; sparser (a sensor's), the amplitude of a half sine
/// fitted to its samples between the crossings (interpolated linearly between the
/// samples either side), at the half cycle's middle. Why the fit: a LIS3DH at 1344 Hz
/// takes 3.8 samples a half cycle of 175 Hz, so its largest sample lies anywhere from
/// cos(π · 175/1344) ≈ 92 % to 100 % of the crest depending on where the samples fall;
/// read at the samples, the envelope wobbles by that much from one half cycle to the
/// next, and a rise time read off it (where the envelope is nearly flat, at 90 %) moves
/// by up to a fifth. The fit reads the crest from every sample of the lobe wherever
/// they fall, and a sensor's noise averages out of it where it would only push a
/// largest sample up (which, near the 10 % of a stop, holds a stop time open by
/// milliseconds).
///
/// Exact zeros: a run of at least `silentSamples` keeps the envelope at 0 from its
/// first to its last sample (silence before a drive); a shorter run is a zero
/// crossing that a quantized sensor happened to sample (a LIS3DH reads 0 counts
/// within ±1 mg), not a dip to 0 in the middle of a vibration. The tiny lobes noise
/// makes at a zero crossing are dropped (`withoutNotches`).
public struct Envelope: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var boardMicroseconds: UInt64
        public var g: Double
    }

    /// Exact zeros in a row that are silence rather than a sampled zero crossing.
    public static let silentSamples = 3
    /// Samples in a half cycle from which its largest lies within 2 % of the crest
    /// (cos(π/2 / 8) = 0.981): there the largest sample is the lobe's amplitude.
    public static let denseLobeSamples = 8
    /// A half-sine fit needs samples away from its crossings: Σ sin² of their phases at
    /// least this (a lone sample next to a crossing would scale its noise up without bound).
    static let fitWeight = 0.5

    /// In time order.
    public private(set) var points: [Point]

    public init(_ samples: [AccelerationSample]) {
        // Runs of one sign (+1, −1, or 0 for exact zeros), as [start, end) index ranges.
        var runs: [(sign: Int, range: Range<Int>)] = []
        for (i, s) in samples.enumerated() {
            let sign = s.g > 0 ? 1 : (s.g < 0 ? -1 : 0)
            if let last = runs.last, last.sign == sign {
                runs[runs.count - 1].range = last.range.lowerBound..<(i + 1)
            } else {
                runs.append((sign, i..<(i + 1)))
            }
        }
        func time(_ i: Int) -> Double { Double(samples[i].boardMicroseconds) }
        // Where the signal crosses 0 between the last sample of one run and the first of
        // the next: a sampled zero itself, or interpolated between opposite signs.
        func crossing(after a: Int, before b: Int) -> Double {
            let ga = samples[a].g, gb = samples[b].g
            if ga == 0 { return time(a) }
            if gb == 0 { return time(b) }
            return time(a) + (time(b) - time(a)) * ga / (ga - gb)
        }
        var points: [Point] = []
        for (k, run) in runs.enumerated() {
            if run.sign == 0 {
                guard run.range.count >= Self.silentSamples else { continue }
                points.append(Point(boardMicroseconds: samples[run.range.lowerBound].boardMicroseconds, g: 0))
                points.append(Point(boardMicroseconds: samples[run.range.upperBound - 1].boardMicroseconds, g: 0))
                continue
            }
            var best = run.range.lowerBound
            for i in run.range where abs(samples[i].g) > abs(samples[best].g) { best = i }
            let largest = Point(boardMicroseconds: samples[best].boardMicroseconds, g: abs(samples[best].g))
            // A sparse lobe between two crossings (not the recording's first or last).
            guard run.range.count < Self.denseLobeSamples, k > 0, k + 1 < runs.count,
                let fitted = Self.halfSine(
                    samples[run.range], from: crossing(after: run.range.lowerBound - 1, before: run.range.lowerBound),
                    to: crossing(after: run.range.upperBound - 1, before: run.range.upperBound))
            else {
                points.append(largest)
                continue
            }
            points.append(fitted)
        }
        self.points = Self.withoutNotches(points)
    }

    /// The amplitude of the half sine between crossings `z0` and `z1` (board µs) that
    /// fits the samples best (least squares: Σ|g|·s / Σs², s the sine at each sample's
    /// phase), at the half cycle's middle; nil where the samples cannot carry a fit.
    static func halfSine(_ lobe: ArraySlice<AccelerationSample>, from z0: Double, to z1: Double) -> Point? {
        let span = z1 - z0
        guard span > 0, span.isFinite else { return nil }
        var weighted = 0.0, weight = 0.0
        for s in lobe {
            let phase = min(max((Double(s.boardMicroseconds) - z0) / span, 0), 1)
            let sine = Foundation.sin(Double.pi * phase)
            weighted += abs(s.g) * sine
            weight += sine * sine
        }
        guard weight >= fitWeight else { return nil }
        let middle = ((z0 + z1) / 2).rounded()
        guard middle >= 0, middle < 0x1p63 else { return nil }
        return Point(boardMicroseconds: UInt64(middle), g: weighted / weight)
    }

    /// Drops a half-cycle peak under half of both the last peak kept before it and the
    /// larger of the two after it. A sensor's noise at a zero crossing of a small
    /// vibration makes the sign flicker: an even number of extra lobes (mostly two)
    /// whose peaks are tiny; left in, they would pull the envelope down between two real
    /// peaks and end a stop time early. No vibration's envelope has such a notch (a
    /// brake makes it fall, it does not dip and come back); exact silence (0 g) is kept.
    static func withoutNotches(_ points: [Point]) -> [Point] {
        guard points.count > 2 else { return points }
        var kept = [points[0]]
        for i in 1..<(points.count - 1) {
            let p = points[i]
            let after = i + 2 < points.count ? max(points[i + 1].g, points[i + 2].g) : points[i + 1].g
            if let before = kept.last?.g, p.g > 0, p.g < 0.5 * min(before, after) { continue }
            kept.append(p)
        }
        kept.append(points[points.count - 1])
        return kept
    }

    public var isEmpty: Bool { points.isEmpty }

    /// Whether a board time lies within the recording (first to last point).
    public func covers(microseconds t: Double) -> Bool {
        guard let first = points.first, let last = points.last else { return false }
        return t >= Double(first.boardMicroseconds) && t <= Double(last.boardMicroseconds)
    }

    /// The last point at or before a board time: the peak of the last half cycle that
    /// had begun by then (nil before the first).
    public func lastPeak(atOrBeforeMicroseconds t: Double) -> Point? {
        points.last { Double($0.boardMicroseconds) <= t }
    }

    /// The envelope at a board time, interpolated; before the first point its value,
    /// after the last point its value.
    public func value(atMicroseconds t: Double) -> Double {
        guard let first = points.first, let last = points.last else { return 0 }
        if t <= Double(first.boardMicroseconds) { return first.g }
        if t >= Double(last.boardMicroseconds) { return last.g }
        // First point after t (binary search: traces hold 10^4–10^6 samples).
        var lo = 0, hi = points.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if Double(points[mid].boardMicroseconds) > t { hi = mid } else { lo = mid + 1 }
        }
        let b = points[lo], a = points[lo - 1]
        let span = Double(b.boardMicroseconds) - Double(a.boardMicroseconds)
        return span > 0 ? Self.between(a.g, b.g, fraction: (t - Double(a.boardMicroseconds)) / span) : b.g
    }

    /// The envelope a `fraction` of the way from one peak to the next: geometric (a
    /// straight line on a log scale) when both are above 0, so a free ring-down — an
    /// exponential — is followed exactly however far apart its half cycles are (an ERM
    /// slowing down: 10 ms and more); linear from or to 0 (silence).
    static func between(_ a: Double, _ b: Double, fraction f: Double) -> Double {
        a > 0 && b > 0 ? a * Foundation.pow(b / a, f) : a + (b - a) * f
    }

    /// Where between two peaks the envelope is at `level` (the inverse of `between`),
    /// as a fraction of the way; the level must lie between them.
    static func fraction(of level: Double, between a: Double, _ b: Double) -> Double {
        if a > 0 && b > 0 && level > 0 && a != b { return Foundation.log(level / a) / Foundation.log(b / a) }
        return b != a ? (level - a) / (b - a) : 1
    }

    /// The first board time (µs, interpolated) at or after `from` where the envelope is
    /// at or above `level` (`rising`) or below it (falling); nil when it never is.
    public func firstCrossing(_ level: Double, rising: Bool, fromMicroseconds from: Double) -> Double? {
        func past(_ g: Double) -> Bool { rising ? g >= level : g < level }
        var prevT = from, prevG = value(atMicroseconds: from)
        if past(prevG) { return from }
        for p in points where Double(p.boardMicroseconds) > from {
            let t = Double(p.boardMicroseconds)
            if past(p.g) { return prevT + Self.fraction(of: level, between: prevG, p.g) * (t - prevT) }
            prevT = t
            prevG = p.g
        }
        return nil
    }

    /// The envelope's mean over a board-time window, by the trapezoid rule over its
    /// points (so uneven half cycles weigh by their length); nil for an empty window.
    public func mean(fromMicroseconds a: Double, toMicroseconds b: Double) -> Double? {
        guard b > a, !points.isEmpty else { return nil }
        var ts = [a]
        ts += points.map { Double($0.boardMicroseconds) }.filter { $0 > a && $0 < b }
        ts.append(b)
        var area = 0.0
        for i in 1..<ts.count { area += (value(atMicroseconds: ts[i - 1]) + value(atMicroseconds: ts[i])) / 2 * (ts[i] - ts[i - 1]) }
        return area / (b - a)
    }
}
