import Bench
import DeviceInterface
import Foundation
import HapticCompilation
import Measurements
import Testing

/// Each measurement on a trace whose answer is known in closed form, so the functions
/// are pinned apart from any physics: a sine carrier under a first-order envelope.
struct SyntheticTraceTests {
    /// 10 kHz, the simulated sled's rate.
    static let sampleMicroseconds: UInt64 = 100

    /// A sine burst: silence until `onMs`, then a carrier of `hz` whose envelope rises
    /// as A(1 − e^(−t/τrise)) until `offMs`, then falls as e^(−t/τfall); `endMs` long.
    static func burst(
        amplitudeG a: Double = 1, hz: Double = 200, onMs: Double = 50, offMs: Double = 250, endMs: Double = 400,
        riseTauMs: Double = 10, fallTauMs: Double = 8
    ) -> [AccelerationSample] {
        var out: [AccelerationSample] = []
        var t: UInt64 = 0
        let levelAtOff = a * (1 - exp(-(offMs - onMs) / riseTauMs))
        while Double(t) / 1000 <= endMs {
            let ms = Double(t) / 1000
            let envelope: Double
            if ms < onMs {
                envelope = 0
            } else if ms < offMs {
                envelope = a * (1 - exp(-(ms - onMs) / riseTauMs))
            } else {
                envelope = levelAtOff * exp(-(ms - offMs) / fallTauMs)
            }
            out.append(AccelerationSample(boardMicroseconds: t, g: envelope * sin(2 * Double.pi * hz * (ms - onMs) / 1000)))
            t += sampleMicroseconds
        }
        return out
    }

    static let step = DriveStep(startMicroseconds: 50_000, endMicroseconds: 250_000)

    @Test("Peak of a 1 g, 200 Hz sine sampled at 10 kHz is 1 g within the sampling's cos(π·f/fs) ≈ 0.2 %")
    func peakOfASine() throws {
        let sine = (0..<1000).map { AccelerationSample(boardMicroseconds: UInt64($0) * 100, g: sin(2 * Double.pi * 200 * Double($0) * 1e-4)) }
        let peak = try AccelerationLevels.peakG(sine)
        #expect(peak.unit == .g && peak.name == "peak acceleration")
        #expect(abs(peak.value - 1) < 0.002)
    }

    @Test("RMS of a 1 g sine over whole cycles is 1/√2 g (the sum of sin² over whole periods is exact)")
    func rmsOfASine() throws {
        // 1001 samples: 1000 intervals = 20 whole cycles of 200 Hz; each sample weighs
        // the interval after it.
        let sine = (0...1000).map { AccelerationSample(boardMicroseconds: UInt64($0) * 100, g: sin(2 * Double.pi * 200 * Double($0) * 1e-4)) }
        let rms = try AccelerationLevels.rmsG(sine)
        #expect(rms.unit == .g)
        #expect(abs(rms.value - 1 / 2.0.squareRoot()) < 1e-9)
    }

    @Test("Peak and RMS keep to their window: the silence before a burst is 0 g")
    func windowsSelectSamples() throws {
        let trace = Self.burst()
        #expect(try AccelerationLevels.peakG(trace, in: 0...49_900).value == 0)
        #expect(try AccelerationLevels.rmsG(trace, in: 0...49_900).value == 0)
        #expect(try AccelerationLevels.peakG(trace, in: 200_000...250_000).value > 0.99)
    }

    @Test("Rise time of a first-order envelope is ln(9)·τ (10 → 90 %) within 0.3 ms")
    func riseTimeOfAFirstOrderEnvelope() throws {
        // τ = 10 ms → 21.97 ms. The envelope is read at each half cycle's peak (every
        // 2.5 ms at 200 Hz) and interpolated linearly between them: the exponential's
        // curvature over 2.5 ms and the 0.1 ms sampling keep the error below 0.3 ms.
        let rise = try ResponseTimes.riseTimeMilliseconds(Self.burst(), step: Self.step)
        #expect(rise.unit == .milliseconds)
        #expect(abs(rise.value - log(9) * 10) < 0.3, "\(rise)")
    }

    @Test("Lag of a first-order envelope to 10 % of its settled level is −ln(0.9)·τ within 0.3 ms")
    func lagOfAFirstOrderEnvelope() throws {
        let lag = try ResponseTimes.lagMilliseconds(Self.burst(), step: Self.step)
        #expect(abs(lag.value - -log(0.9) * 10) < 0.3, "\(lag)")
        // A late stamp: the same motion, a drive stamped 5 ms earlier, lags 5 ms more.
        let early = try ResponseTimes.lagMilliseconds(Self.burst(), step: DriveStep(startMicroseconds: 45_000, endMicroseconds: 250_000))
        // (The settled level's window moves with the step: a few µs of difference.)
        #expect(abs(early.value - lag.value - 5) < 0.001)
    }

    @Test("Stop time of an exponential fall is ln(10)·τ after the drive's end, within 0.3 ms")
    func stopTimeOfAnExponentialFall() throws {
        // τ fall = 8 ms → 18.42 ms, whatever the level at the stamp.
        let stop = try ResponseTimes.stopTimeMilliseconds(Self.burst(), step: Self.step)
        #expect(abs(stop.value - log(10) * 8) < 0.3, "\(stop)")
        let small = try ResponseTimes.stopTimeMilliseconds(Self.burst(amplitudeG: 0.01), step: Self.step)
        #expect(abs(small.value - stop.value) < 0.05)
    }

    /// The burst as a LIS3DH at 1344 Hz samples it (744.048 µs apart) with its first
    /// sample `phaseMicroseconds` into the trace: 3.8 samples a half cycle of 175 Hz.
    static func sensorBurst(
        phaseMicroseconds: Double, amplitudeG: Double = 1, riseTauMs: Double = 10, fallTauMs: Double = 8, noiseG: Double = 0
    ) -> [AccelerationSample] {
        let dense = burst(hz: 175, riseTauMs: riseTauMs, fallTauMs: fallTauMs)
        func g(atMicroseconds t: Double) -> Double {
            let ms = t / 1000, onMs = 50.0, offMs = 250.0
            let levelAtOff = 1 - exp(-(offMs - onMs) / riseTauMs)
            let envelope = ms < onMs ? 0 : ms < offMs ? 1 - exp(-(ms - onMs) / riseTauMs) : levelAtOff * exp(-(ms - offMs) / fallTauMs)
            return envelope * sin(2 * Double.pi * 175 * (ms - onMs) / 1000)
        }
        let period = 1e6 / 1344
        let end = Double(dense.last?.boardMicroseconds ?? 0)
        // Gaussian noise from a fixed sequence (Box–Muller over a 64-bit LCG), so the test is the same every run.
        var state: UInt64 = 0x5EED
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) + 0.5) / Double(UInt64(1) << 53)
        }
        return stride(from: phaseMicroseconds, through: end, by: period).map {
            let noise = noiseG > 0 ? noiseG * (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) : 0
            return AccelerationSample(boardMicroseconds: UInt64($0.rounded()), g: amplitudeG * g(atMicroseconds: $0) + noise)
        }
    }

    @Test("A level within the sensor's noise is not timed: a 20 mg burst under 5.7 mg rms (a LIS3DH's at 1344 Hz) has its rise, lag and stop refused as withinNoise; at 0.5 g all three are measured, and a noise-free trace is never refused")
    func levelsWithinTheNoiseAreRefused() throws {
        let weak = Self.sensorBurst(phaseMicroseconds: 0, amplitudeG: 0.02, noiseG: 0.0057)
        let noise = try #require(NoiseFloor.rmsG(weak))
        #expect(noise > 0.003 && noise < 0.0065, "noise \(noise) g")
        func refusal(_ body: () throws(MeasurementError) -> BenchMeasurement) -> MeasurementError? {
            do { _ = try body() } catch { return error }
            return nil
        }
        let refusals = [
            refusal { () throws(MeasurementError) in try ResponseTimes.riseTimeMilliseconds(weak, step: Self.step) },
            refusal { () throws(MeasurementError) in try ResponseTimes.lagMilliseconds(weak, step: Self.step) },
            refusal { () throws(MeasurementError) in try ResponseTimes.stopTimeMilliseconds(weak, step: Self.step) },
        ]
        for error in refusals {
            guard case .withinNoise(_, let level, _)? = error else {
                Issue.record("expected withinNoise, got \(String(describing: error))")
                continue
            }
            #expect(level < NoiseFloor.margin * noise)
            #expect(error?.description.contains("within the sensor's noise") == true)
        }
        let strong = Self.sensorBurst(phaseMicroseconds: 0, amplitudeG: 0.5, noiseG: 0.0057)
        #expect(abs(try ResponseTimes.stopTimeMilliseconds(strong, step: Self.step).value - log(10) * 8) < 1)
        _ = try ResponseTimes.riseTimeMilliseconds(strong, step: Self.step)
        #expect(NoiseFloor.rmsG(Self.sensorBurst(phaseMicroseconds: 0, amplitudeG: 0.001)) == 0)
        _ = try ResponseTimes.stopTimeMilliseconds(Self.sensorBurst(phaseMicroseconds: 0, amplitudeG: 0.001), step: Self.step)
    }

    @Test("A 175 Hz burst sampled as a LIS3DH does (1344 Hz, 3.8 samples a half cycle), wherever the samples fall: rise time within 3 % and stop time within 1 % of the closed form (read at the largest sample of each half cycle they moved by −13…+21 % and −4…+2 %)")
    func sparseSamplesAtAnyPhase() throws {
        for (rise, fall) in [(10.0, 8.0), (20.0, 15.0)] {
            for k in 0..<24 {
                let trace = Self.sensorBurst(phaseMicroseconds: Double(k) * 744.048 / 24, riseTauMs: rise, fallTauMs: fall)
                let r = try ResponseTimes.riseTimeMilliseconds(trace, step: Self.step).value
                let s = try ResponseTimes.stopTimeMilliseconds(trace, step: Self.step).value
                #expect(abs(r - log(9) * rise) <= 0.03 * log(9) * rise, "τ \(rise) ms, phase \(k)/24: rise \(r) ms")
                #expect(abs(s - log(10) * fall) <= 0.01 * log(10) * fall, "τ \(fall) ms, phase \(k)/24: stop \(s) ms")
            }
        }
    }

    @Test("A sensor's sample of exactly 0 g at a zero crossing (0 counts) is a crossing, not silence: the stop time is the one without it; three zeros in a row are silence")
    func aSampledZeroIsACrossing() throws {
        let trace = Self.sensorBurst(phaseMicroseconds: 0)
        let clean = try ResponseTimes.stopTimeMilliseconds(trace, step: Self.step).value
        // The sample nearest a zero crossing 5 ms into the fall, read as 0 counts.
        var zeroed = trace
        let fall = zeroed.indices.filter { zeroed[$0].boardMicroseconds > 255_000 && zeroed[$0].boardMicroseconds < 258_000 }
        let nearest = try #require(fall.min { abs(zeroed[$0].g) < abs(zeroed[$1].g) })
        zeroed[nearest].g = 0
        #expect(Envelope(zeroed).points.allSatisfy { $0.g > 0 || $0.boardMicroseconds < 50_000 })
        #expect(abs(try ResponseTimes.stopTimeMilliseconds(zeroed, step: Self.step).value - clean) < 0.5)
        // Three in a row: the envelope is 0 there.
        for i in nearest..<(nearest + 3) { zeroed[i].g = 0 }
        #expect(Envelope(zeroed).value(atMicroseconds: Double(zeroed[nearest + 1].boardMicroseconds)) == 0)
    }

    @Test("A sensor's zero-g level (TyOff, up to ±40 mg) is the recording's mean and comes out whole: the burst read 40 mg high gives the peak and stop time it gives without; left in, the ring-down's last 10 % (under 40 mg) has no zero crossing")
    func zeroGOffsetComesOut() throws {
        let trace = Self.sensorBurst(phaseMicroseconds: 100)
        let shifted = trace.map { AccelerationSample(boardMicroseconds: $0.boardMicroseconds, g: $0.g + 0.040) }
        // The burst starts and ends at rest, so its own mean is ~0: what is left is the offset.
        #expect(abs(ZeroGOffset.of(shifted) - 0.040) < 0.001)
        let restored = ZeroGOffset.removed(from: shifted)
        #expect(abs(try AccelerationLevels.peakG(restored).value - AccelerationLevels.peakG(trace).value) < 0.001)
        let clean = try ResponseTimes.stopTimeMilliseconds(trace, step: Self.step).value
        #expect(abs(try ResponseTimes.stopTimeMilliseconds(restored, step: Self.step).value - clean) < 0.1)
        // Left in: below 40 mg every sample is positive, one lobe to the end of the recording.
        let kept = try? ResponseTimes.stopTimeMilliseconds(shifted, step: Self.step).value
        #expect(kept.map { abs($0 - clean) > 1 } ?? true, "stop with the offset left in: \(String(describing: kept)) ms")
    }

    @Test("A sign flicker at a zero crossing (noise on a small vibration) is not a dip in the envelope; a stop's fall is kept")
    func flickerIsNotANotch() {
        // Half cycles of ±1 g at 200 Hz (25 samples each), with noise making the sign
        // flicker once at the crossing after the second: two extra lobes of 0.01 g.
        func lobe(_ sign: Double, _ scale: Double = 1) -> [Double] { (1...24).map { sign * scale * sin(Double.pi * Double($0) / 25) } + [sign * 1e-3] }
        var g = lobe(1) + lobe(-1) + [0.01, -0.01] + lobe(1) + lobe(-1)
        var samples = g.enumerated().map { AccelerationSample(boardMicroseconds: UInt64($0.offset) * 100, g: $0.element) }
        let envelope = Envelope(samples)
        #expect(envelope.points.map(\.g).allSatisfy { $0 > 0.9 }, "\(envelope.points)")
        // A real fall (a brake: 1 g, then 0.3, 0.1, 0.03 g half cycles) has no notch: all kept.
        g = lobe(1) + lobe(-1, 0.3) + lobe(1, 0.1) + lobe(-1, 0.03)
        samples = g.enumerated().map { AccelerationSample(boardMicroseconds: UInt64($0.offset) * 100, g: $0.element) }
        #expect(Envelope(samples).points.count == 4)
    }

    @Test("The envelope follows the half-cycle peaks: 0 over silence, the burst's level where it has settled")
    func envelopeOfABurst() {
        let envelope = Envelope(Self.burst())
        #expect(envelope.value(atMicroseconds: 20_000) == 0 && envelope.value(atMicroseconds: 49_000) == 0)
        #expect(abs(envelope.value(atMicroseconds: 200_000) - 1) < 0.01)
        #expect(Envelope([]).isEmpty)
    }

    @Test("Drive steps: from the stamp leaving 0 to the stamp back at 0 (or a reverse brake); a drive still on has no end")
    func driveSteps() {
        let drive = [
            DriveStamp(boardMicroseconds: 0, amplitude: 0), DriveStamp(boardMicroseconds: 10, amplitude: 40),
            DriveStamp(boardMicroseconds: 20, amplitude: 127), DriveStamp(boardMicroseconds: 30, amplitude: 0),
            DriveStamp(boardMicroseconds: 40, amplitude: 90), DriveStamp(boardMicroseconds: 50, amplitude: -60),
            DriveStamp(boardMicroseconds: 60, amplitude: 0), DriveStamp(boardMicroseconds: 70, amplitude: 10),
        ]
        #expect(
            DriveStep.steps(in: drive) == [
                DriveStep(startMicroseconds: 10, endMicroseconds: 30), DriveStep(startMicroseconds: 40, endMicroseconds: 50),
                DriveStep(startMicroseconds: 70, endMicroseconds: nil),
            ])
        let log = [
            TimedCommand(time: 5, command: .register(0x1D, 0)), TimedCommand(time: 10, command: .rtp(64)),
            TimedCommand(time: 20, command: .stop), TimedCommand(time: 30, command: .rtp(0)),
        ]
        #expect(DriveStamp.from(log) == [DriveStamp(boardMicroseconds: 10, amplitude: 64), DriveStamp(boardMicroseconds: 30, amplitude: 0)])
    }

    @Test("f0 from LRA_PERIOD is 1 / (code × 98.46 µs): code 58 is 175.1 Hz; code 0 (nothing tracked) is an error")
    func resonanceFromPeriodCode() throws {
        let f0 = try Resonance.frequencyHz(lraPeriodCode: 58)
        #expect(f0.unit == .hertz && abs(f0.value - 1 / (58 * 98.46e-6)) < 1e-9)
        #expect(throws: MeasurementError.noResonance(measurement: "resonance f0")) { try Resonance.frequencyHz(lraPeriodCode: 0) }
    }

    @Test("No samples, or a level never reached, is a MeasurementError naming the measurement, not a number")
    func missingDataIsAnError() {
        #expect(throws: MeasurementError.noAcceleration(measurement: "peak acceleration")) { try AccelerationLevels.peakG([]) }
        #expect(throws: MeasurementError.noAcceleration(measurement: "RMS acceleration")) { try AccelerationLevels.rmsG(Self.burst(), in: 1_000_000...2_000_000) }
        // A step stamped after the recording ends: nothing recorded to rise.
        #expect(throws: MeasurementError.self) { try ResponseTimes.riseTimeMilliseconds(Self.burst(endMs: 100), step: DriveStep(startMicroseconds: 200_000, endMicroseconds: 300_000)) }
        #expect(throws: MeasurementError.noDriveStep(measurement: "stop time (to 10 %)")) {
            try ResponseTimes.stopTimeMilliseconds(Self.burst(), step: DriveStep(startMicroseconds: 0, endMicroseconds: nil))
        }
        let error = MeasurementError.levelNotReached(measurement: "rise time 10→90 %", levelG: 0.5, afterMilliseconds: 12)
        #expect(error.description == "rise time 10→90 %: the acceleration envelope never crosses 0.5000 g after 12.000 ms")
    }

    @Test("A measurement prints as name: value unit, and encodes its unit's symbol")
    func measurementText() throws {
        let m = BenchMeasurement(name: "rise time 10→90 %", unit: .milliseconds, value: 12.3456)
        #expect(m.description == "rise time 10→90 %: 12.346 ms")
        let json = String(decoding: try JSONEncoder().encode(BenchMeasurement(name: "f0", unit: .hertz, value: 175)), as: UTF8.self)
        #expect(json.contains("\"unit\":\"Hz\""))
    }
}
