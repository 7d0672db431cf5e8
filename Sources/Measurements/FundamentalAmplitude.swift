import Foundation

/// The amplitude of one frequency's component in a uniformly sampled signal: the
/// single-bin Fourier coefficient over the whole cycles the samples hold, so the square
/// drive's odd harmonics and any offset drop out (a lock-in amplifier's reading).
public enum FundamentalAmplitude {
    public static func of(timesMilliseconds t: [Double], values: [Double], frequencyHz f: Double) -> Double {
        guard let start = t.first, let end = t.last, f > 0, end > start, t.count == values.count else { return 0 }
        let cycles = ((end - start) / 1000 * f).rounded(.down)
        guard cycles >= 1 else { return 0 }
        let stop = start + cycles / f * 1000
        var sine = 0.0, cosine = 0.0
        var n = 0
        for (time, value) in zip(t, values) where time < stop {
            let phase = 2 * Double.pi * f * (time - start) / 1000
            sine += value * sin(phase)
            cosine += value * cos(phase)
            n += 1
        }
        return n > 0 ? 2 * (sine * sine + cosine * cosine).squareRoot() / Double(n) : 0
    }
}
