import Foundation

/// An LRA's open-loop frequency response: the acceleration amplitude per drive volt at
/// each frequency of a sweep, and the second-order resonance fitted to it.
///
/// A voice-coil resonator driven by a voltage source is a mass on a spring with the
/// coil's back-EMF as extra damping (`LRAPhysics`: m x'' = Bl i − c x' − k x,
/// i = (u − Bl x')/R). Its acceleration per volt at frequency f is
///
///     |H(f)|² = K f⁴ / ((f0² − f²)² + f² f0² / Q²)
///
/// with Q the loaded quality factor m ω0 / (c + Bl²/R), below the part's mechanical Q.
/// f⁴/|H|² is then a quadratic in f², so the fit is a linear least-squares problem
/// (weighted so that every point counts by its relative error) and needs no starting
/// guess. The half-power (−3 dB) points are read off the fitted curve.
public struct FrequencyResponse: Sendable, Equatable {
    /// One frequency of the sweep.
    public struct Point: Sendable, Equatable, Codable {
        /// The drive's frequency (what OL_LRA_PERIOD's code gives, not what was asked for).
        public var frequencyHz: Double
        /// The acceleration's amplitude at that frequency (the fundamental, peak), g.
        public var accelerationG: Double
        /// The drive's RMS voltage at that frequency (OD_CLAMP's and the level's), V.
        public var driveVolts: Double

        public init(frequencyHz: Double, accelerationG: Double, driveVolts: Double) {
            self.frequencyHz = frequencyHz
            self.accelerationG = accelerationG
            self.driveVolts = driveVolts
        }

        /// Acceleration per drive volt, g/V: what the response is, whatever the level.
        public var gPerVolt: Double { driveVolts > 0 ? accelerationG / driveVolts : 0 }
    }

    /// The resonance fitted to the points.
    public struct Resonance: Sendable, Equatable {
        /// The resonant (natural) frequency f0, Hz.
        public var frequencyHz: Double
        /// The loaded quality factor.
        public var qualityFactor: Double
        /// The fitted curve's peak, g/V, and where it lies (a hair above f0 for acceleration).
        public var peakGPerVolt: Double
        public var peakHz: Double
        /// Where the fitted curve is 3 dB below its peak; nil where that lies outside the
        /// swept range (the sweep did not reach it).
        public var lowerHalfPowerHz: Double?
        public var upperHalfPowerHz: Double?
        /// RMS of the points' distance from the fitted curve, dB: how well a single
        /// resonance describes the response.
        public var residualDB: Double

        /// The −3 dB bandwidth, Hz, when both points were reached.
        public var bandwidthHz: Double? {
            guard let lower = lowerHalfPowerHz, let upper = upperHalfPowerHz else { return nil }
            return upper - lower
        }

        /// |H(f)| on the fitted curve, g/V.
        public func gPerVolt(atHz f: Double) -> Double {
            Self.magnitude(f: f, f0: frequencyHz, q: qualityFactor, k: gain)
        }

        /// K in |H|² = K f⁴ / ((f0² − f²)² + f² f0² / Q²).
        var gain: Double

        static func magnitude(f: Double, f0: Double, q: Double, k: Double) -> Double {
            let x = f * f, x0 = f0 * f0
            let d = (x0 - x) * (x0 - x) + x * x0 / (q * q)
            return d > 0 ? (k * x * x / d).squareRoot() : .infinity
        }
    }

    /// Why no resonance could be fitted, in words a report can print.
    public enum FitError: Error, Sendable, Equatable, CustomStringConvertible {
        case tooFewPoints(Int)
        case peakAtEdge(frequencyHz: Double)
        case notAResonance

        public var description: String {
            switch self {
            case .tooFewPoints(let n): "\(n) points with a response: a resonance needs at least 5"
            case .peakAtEdge(let f):
                "the response is largest at the sweep's edge (\(String(format: "%.1f", f)) Hz): the resonance lies outside the range; widen --from/--to"
            case .notAResonance: "the points do not describe a single resonance (is the actuator an LRA, and mounted?)"
            }
        }
    }

    public var points: [Point]
    public var resonance: Result<Resonance, FitError>

    public init(points: [Point]) {
        self.points = points.sorted { $0.frequencyHz < $1.frequencyHz }
        resonance = Self.fit(self.points)
    }

    static func fit(_ points: [Point]) -> Result<Resonance, FitError> {
        let usable = points.filter { $0.gPerVolt > 0 && $0.frequencyHz > 0 }
        guard usable.count >= 5 else { return .failure(.tooFewPoints(usable.count)) }
        guard let top = usable.indices.max(by: { usable[$0].gPerVolt < usable[$1].gPerVolt }) else { return .failure(.notAResonance) }
        if top == 0 || top == usable.count - 1 { return .failure(.peakAtEdge(frequencyHz: usable[top].frequencyHz)) }

        // y = f⁴/|H|² = A x² + B x + C in x = f², weighted by 1/y (relative error).
        // Scaled to the peak's frequency so the normal equations stay well conditioned.
        let scale = usable[top].frequencyHz
        var ata = [[Double]](repeating: [0, 0, 0], count: 3)
        var atb = [0.0, 0, 0]
        for p in usable {
            let x = (p.frequencyHz / scale) * (p.frequencyHz / scale)
            let y = x * x / (p.gPerVolt * p.gPerVolt)
            let row = [x * x / y, x / y, 1 / y]  // the row divided by y; the target y/y = 1
            for i in 0..<3 {
                for j in 0..<3 { ata[i][j] += row[i] * row[j] }
                atb[i] += row[i]
            }
        }
        guard let abc = Self.solve3(ata, atb) else { return .failure(.notAResonance) }
        let (a, b, c) = (abc[0], abc[1], abc[2])
        // A = 1/K, B = (f0²/Q² − 2 f0²)/K, C = f0⁴/K (in scaled units).
        guard a > 0, c > 0 else { return .failure(.notAResonance) }
        let x0 = (c / a).squareRoot()
        let inverseQ2 = b / (a * x0) + 2
        guard inverseQ2 > 0, inverseQ2 < 2 else { return .failure(.notAResonance) }
        let f0 = x0.squareRoot() * scale
        let q = 1 / inverseQ2.squareRoot()
        // A resonance the sweep saw: its peak inside the range, and a peak at all
        // (Q above 1/√2; a flat response fits a broad bump far outside the range).
        let low = usable[0].frequencyHz, high = usable[usable.count - 1].frequencyHz
        guard q > 1, f0 > low, f0 < high else { return .failure(.notAResonance) }
        // K is the same in scaled and in real units: f⁴ and the denominator both scale as s⁴.
        let k = 1 / a
        func model(_ f: Double) -> Double { Resonance.magnitude(f: f, f0: f0, q: q, k: k) }

        // The fitted curve's peak (the acceleration response peaks at f0 / √(1 − 1/(2Q²))).
        let peakHz = f0 / (1 - 1 / (2 * q * q)).squareRoot()
        let peak = model(peakHz)
        let half = peak / 2.0.squareRoot()
        func crossing(_ from: Double, _ to: Double) -> Double? {
            // `from` is above half power; bisect toward `to` if the curve falls below it there.
            guard model(to) <= half else { return nil }
            var (inside, outside) = (from, to)
            for _ in 0..<60 {
                let mid = (inside + outside) / 2
                if model(mid) > half { inside = mid } else { outside = mid }
            }
            return (inside + outside) / 2
        }
        var squares = 0.0
        for p in usable {
            let d = 20 * log10(p.gPerVolt / model(p.frequencyHz))
            squares += d * d
        }
        return .success(
            Resonance(
                frequencyHz: f0, qualityFactor: q, peakGPerVolt: peak, peakHz: peakHz,
                lowerHalfPowerHz: peakHz > low ? crossing(peakHz, low) : nil, upperHalfPowerHz: peakHz < high ? crossing(peakHz, high) : nil,
                residualDB: (squares / Double(usable.count)).squareRoot(), gain: k))
    }

    /// Solves a 3×3 linear system by Gaussian elimination with partial pivoting; nil
    /// when it is singular.
    static func solve3(_ m: [[Double]], _ v: [Double]) -> [Double]? {
        var a = m, b = v
        for col in 0..<3 {
            guard let pivot = (col..<3).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-300 else { return nil }
            a.swapAt(col, pivot)
            b.swapAt(col, pivot)
            for row in (col + 1)..<3 {
                let f = a[row][col] / a[col][col]
                for k in col..<3 { a[row][k] -= f * a[col][k] }
                b[row] -= f * b[col]
            }
        }
        var x = [0.0, 0, 0]
        for row in stride(from: 2, through: 0, by: -1) {
            var s = b[row]
            for k in (row + 1)..<3 { s -= a[row][k] * x[k] }
            x[row] = s / a[row][row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
