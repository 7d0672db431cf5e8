import DeviceInterface
import Foundation

/// The amplitude envelope of a vibration: one point per half cycle, at the largest
/// |acceleration| between two zero crossings (a lobe), joined by exponential segments
/// (straight lines on a log scale; linear to and from 0).
///
/// Why lobes and not a sliding-window maximum: a window lags or leads the envelope by
/// up to half its width (≈ 3 ms for a 175 Hz LRA, the size of the figures measured
/// here), while a lobe's peak lies on the envelope, so crossings interpolated between
/// lobe peaks are off by much less than a half cycle whenever the envelope changes
/// little within one half cycle. Works for any carrier (an LRA at resonance, an ERM
/// whose rotation speeds up); exact zeros (a silent stretch) keep the envelope at 0
/// from the stretch's first to its last sample; the tiny lobes noise makes at a zero
/// crossing are dropped (`withoutNotches`).
public struct Envelope: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var boardMicroseconds: UInt64
        public var g: Double
    }

    /// In time order.
    public private(set) var points: [Point]

    public init(_ samples: [AccelerationSample]) {
        var points: [Point] = []
        var lobeSign = 0
        var lobeStart = 0
        func closeLobe(_ end: Int) {
            guard end > lobeStart else { return }
            if lobeSign == 0 {
                points.append(Point(boardMicroseconds: samples[lobeStart].boardMicroseconds, g: 0))
                if end - 1 > lobeStart { points.append(Point(boardMicroseconds: samples[end - 1].boardMicroseconds, g: 0)) }
            } else {
                var best = lobeStart
                for i in lobeStart..<end where abs(samples[i].g) > abs(samples[best].g) { best = i }
                points.append(Point(boardMicroseconds: samples[best].boardMicroseconds, g: abs(samples[best].g)))
            }
        }
        for (i, s) in samples.enumerated() {
            let sign = s.g > 0 ? 1 : (s.g < 0 ? -1 : 0)
            if i == 0 {
                lobeSign = sign
            } else if sign != lobeSign {
                closeLobe(i)
                lobeStart = i
                lobeSign = sign
            }
        }
        closeLobe(samples.count)
        self.points = Self.withoutNotches(points)
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
