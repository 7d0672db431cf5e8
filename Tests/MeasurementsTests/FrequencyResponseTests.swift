import Foundation
import Measurements
import Testing

/// The resonance fit and the lock-in amplitude on synthetic data, where the answer is
/// known exactly.
struct FrequencyResponseTests {
    /// |H(f)| of a second-order resonator's acceleration per volt (`FrequencyResponse`).
    static func magnitude(_ f: Double, f0: Double, q: Double, k: Double = 0.1) -> Double {
        let x = f * f, x0 = f0 * f0
        return (k * x * x / ((x0 - x) * (x0 - x) + x * x0 / (q * q))).squareRoot()
    }

    /// Points at the OL_LRA_PERIOD codes' frequencies, as a sweep takes them.
    static func points(f0: Double, q: Double, codes: ClosedRange<Int>, noise: (Int) -> Double = { _ in 0 }) -> [FrequencyResponse.Point] {
        codes.map { code in
            let f = 1 / (Double(code) * 98.46e-6)
            return .init(frequencyHz: f, accelerationG: 2 * magnitude(f, f0: f0, q: q) * (1 + noise(code)), driveVolts: 2)
        }
    }

    @Test("A second-order resonance sampled at the OL_LRA_PERIOD codes: the fit gives f0 and Q back to 0.01 %, and the −3 dB points where |H| is the peak / √2")
    func fitRecoversAResonance() throws {
        let response = FrequencyResponse(points: Self.points(f0: 175, q: 11.1, codes: 41...83))
        let fit = try response.resonance.get()
        #expect(abs(fit.frequencyHz - 175) < 175e-4 && abs(fit.qualityFactor - 11.1) < 11.1e-4, "\(fit)")
        let lower = try #require(fit.lowerHalfPowerHz), upper = try #require(fit.upperHalfPowerHz)
        for f in [lower, upper] {
            #expect(abs(Self.magnitude(f, f0: 175, q: 11.1) / Self.magnitude(fit.peakHz, f0: 175, q: 11.1) - 1 / 2.0.squareRoot()) < 1e-6)
        }
        // The half-power bandwidth is f0/Q but for terms in 1/Q² (the acceleration
        // response leans toward high frequencies): 1 % here.
        #expect(abs((upper - lower) - 175 / 11.1) < 0.02 * 175 / 11.1)
        #expect(fit.residualDB < 1e-6)
    }

    @Test("±2 % noise on every point moves f0 by under 0.5 % and Q by under 5 %")
    func fitToleratesNoise() throws {
        let response = FrequencyResponse(points: Self.points(f0: 235, q: 13.7, codes: 30...62) { code in code % 2 == 0 ? 0.02 : -0.02 })
        let fit = try response.resonance.get()
        #expect(abs(fit.frequencyHz - 235) < 235 * 0.005 && abs(fit.qualityFactor - 13.7) < 13.7 * 0.05, "\(fit)")
        #expect(fit.residualDB > 0.1 && fit.residualDB < 0.3)
    }

    @Test("A sweep whose largest response is at its edge, too few points, or a flat response: no fit, and the reason")
    func noFitWithoutAResonanceInRange() {
        let rising = FrequencyResponse(points: Self.points(f0: 175, q: 11, codes: 60...80))
        #expect(rising.resonance == .failure(.peakAtEdge(frequencyHz: 1 / (60 * 98.46e-6))))
        #expect(rising.resonance.failureDescription?.contains("widen --from/--to") == true)
        #expect(FrequencyResponse(points: Array(Self.points(f0: 175, q: 11, codes: 56...59))).resonance == .failure(.tooFewPoints(4)))
        let flat = FrequencyResponse(points: (0..<9).map { .init(frequencyHz: 150 + Double($0), accelerationG: $0 == 4 ? 0.5001 : 0.5, driveVolts: 1) })
        #expect(flat.resonance == .failure(.notAResonance))
    }

    @Test("The lock-in amplitude of a square wave's fundamental (4/π of its level) over whole cycles, whatever its offset and odd harmonics")
    func fundamentalOfASquareWave() {
        let f = 175.0
        let times = (0..<1000).map { Double($0) * 0.1 }  // 100 ms at 10 kHz, in ms
        let square = times.map { t in 0.3 + (sin(2 * Double.pi * f * t / 1000) >= 0 ? 1.0 : -1.0) }
        #expect(abs(FundamentalAmplitude.of(timesMilliseconds: times, values: square, frequencyHz: f) - 4 / Double.pi) < 0.01)
        let sine = times.map { t in 0.25 * sin(2 * Double.pi * f * t / 1000 + 1) + 0.1 * sin(2 * Double.pi * 3 * f * t / 1000) }
        #expect(abs(FundamentalAmplitude.of(timesMilliseconds: times, values: sine, frequencyHz: f) - 0.25) < 0.002)
        #expect(FundamentalAmplitude.of(timesMilliseconds: [0, 1], values: [1, 1], frequencyHz: f) == 0)
    }
}

extension Result where Failure: CustomStringConvertible {
    var failureDescription: String? {
        if case .failure(let e) = self { return e.description }
        return nil
    }
}
