import Bench
import DeviceInterface
import Foundation
import JSON
import Measurements
import Testing

/// A sensor's recording with holes (samples it took that never reached the host): no
/// figure is computed over a hole as if the trace were whole.
@Suite("Figures over a recording with lost samples")
struct SampleLossMeasurementTests {
    static let period = 1e6 / 1344

    /// A 175 Hz, 0.5 g sine sampled at 1344 Hz from board µs 0 for `count` samples,
    /// driven from 10 ms to 310 ms; `hole` removes samples (by index) and says so.
    static func trace(count: Int = 700, hole: Range<Int>? = nil) -> PlayTrace {
        var samples: [AccelerationSample] = []
        for i in 0..<count where !(hole?.contains(i) ?? false) {
            let t = Double(i) * period
            let on = t >= 10_000 && t < 310_000
            samples.append(AccelerationSample(boardMicroseconds: UInt64(t), g: on ? 0.5 * sin(2 * Double.pi * 175 * t / 1e6) : 0))
        }
        let losses = hole.map {
            [AccelerationLoss(firstMissingMicroseconds: Double($0.lowerBound) * period, periodMicroseconds: period, count: $0.count, cause: .fifoOverrun)]
        } ?? []
        return PlayTrace(samples: samples, source: "LIS3DH", drive: [(10_000, 127), (310_000, 0)], origin: .sensor, axis: .x, losses: losses)
    }

    static func value(_ m: PlayMeasurements, _ prefix: String) -> Double? { m.measurements.first { $0.name.hasPrefix(prefix) }?.value }

    @Test("RMS is over the time the samples cover, a hole's span left out: 40 samples lost mid-drive give the closed form of the rest (0.5 g sine for 270 of 490 ms) within 1 %, not the sample before the hole weighted by the hole's width")
    func rmsSkipsTheHole() throws {
        let holed = Self.trace(hole: 200..<240)
        let m = PlayMeasurements(trace: holed)
        let rms = try #require(Self.value(m, "RMS"))
        // Covered: 700 − 40 samples' span; driven within it: 300 ms less the hole's 40 periods.
        let covered = Double(700 - 1 - 40) * Self.period, driven = 300_000 - 40 * Self.period
        let expected = (0.125 * driven / covered).squareRoot()
        #expect(abs(rms - expected) / expected < 0.01, "\(rms) g, closed form \(expected) g")
        let samples = try #require(holed.samples)
        let naive = try AccelerationLevels.rmsG(samples).value
        #expect(abs(try AccelerationLevels.rmsG(samples, holes: holed.losses).value - rms) < 1e-12)
        #expect(abs(naive - rms) > 1e-6, "the hole made no difference: the test does not test it")
        #expect(Self.value(m, "peak") != nil)
    }

    @Test("a hole inside the drive step: rise time and lag are not measured, each with the count lost where it is read; the stop time, read after it, is")
    func timingsAcrossAHoleAreNotMeasured() throws {
        let m = PlayMeasurements(trace: Self.trace(hole: 20..<30))
        #expect(Self.value(m, "rise") == nil && Self.value(m, "lag") == nil)
        #expect(Self.value(m, "stop") != nil)
        let reasons = m.unmeasured.map(\.description)
        #expect(reasons.contains { $0.hasPrefix("rise time 10→90 %: the sensor lost 10 of the") }, "\(reasons)")
        #expect(m.unmeasured.contains { if case .samplesLost(let name, 10, _, _) = $0 { name.hasPrefix("lag") } else { false } })
    }

    @Test("more than 10 % of the recording lost: peak and RMS are not measured, with the count and the total")
    func tooManyLost() {
        let m = PlayMeasurements(trace: Self.trace(hole: 100..<200))  // 100 of 700
        #expect(Self.value(m, "peak") == nil && Self.value(m, "RMS") == nil)
        #expect(m.unmeasured.contains(.samplesLost(measurement: "peak acceleration", lost: 100, expected: 700, span: "in the recording (more than 10 %)")))
    }

    @Test("the provenance says the axis and every loss: text, JSON's lostSamples and losses")
    func provenanceSaysTheLoss() throws {
        let p = try #require(Self.trace(hole: 100..<110).provenance)
        #expect(p.text.hasPrefix("sensor (LIS3DH, X axis, 690 samples at 1344 Hz; 10 samples lost in 1 hole (1.4 % of 700): the sensor's FIFO overran"), "\(p.text)")
        let fields = Dictionary(uniqueKeysWithValues: p.jsonFields.map { ($0.key, $0.value) })
        #expect(fields["axis"] == .string("x") && fields["lostSamples"] == .number(10))
        guard case .array(let holes)? = fields["losses"], case .object(let hole)? = holes.first else {
            Issue.record("no losses array: \(fields)")
            return
        }
        #expect(hole.first { $0.key == "samples" }?.value == .number(10) && hole.first { $0.key == "cause" }?.value == .string("fifo-overrun"))
    }
}
