import Actuators
import Foundation
import Measurements
import Testing

/// The timings on the simulated ERM (Adafruit 1201: τ = 45 ms, rated 3 V), against its
/// model (`ERMPhysics`): the speed follows ω' = (ω_r·u/V_r − ω)/τ, and the vibration's
/// envelope is ∝ ω². The engine drives an ERM open loop with its own kick (full scale
/// for the first stamps) and reverse brake, so the model's figures are worked from
/// the drive the chip applied: its output volts and the drive's stamps.
struct SimulatedERMTests {
    struct Drive {
        /// Speeds as fractions of rated: the kick's, the steady drive's, the brake's target.
        var kick: Double, steady: Double, brake: Double
        /// How long the kick lasts, s.
        var kickSeconds: Double
    }

    static func drive(_ played: Played, step: DriveStep, ratedVolts: Double) throws -> Drive {
        let end = try #require(step.endMicroseconds)
        let second = try #require(played.drive.first { $0.boardMicroseconds > step.startMicroseconds })
        func volts(_ range: ClosedRange<UInt64>) throws -> Double {
            let v = played.outputVolts.filter { range.contains($0.time) }.map(\.volts)
            return try #require(v.count > 0 ? v.reduce(0, +) / Double(v.count) : nil)
        }
        return Drive(
            kick: try volts((step.startMicroseconds + 1_000)...(step.startMicroseconds + 2_000)) / ratedVolts,
            steady: try volts((end - 10_000)...(end - 1_000)) / ratedVolts,
            brake: try volts((end + 1_000)...(end + 2_000)) / ratedVolts,
            kickSeconds: Double(second.boardMicroseconds - step.startMicroseconds) * 1e-6)
    }

    @Test("ERM rise, lag and reverse-braked stop match the first-order speed model with the kick and brake the chip applied")
    func ermTimings() async throws {
        let p = try profile("adafruit-1201-mini-disc")
        let tau = try #require(p.erm).timeConstantMilliseconds / 1000
        let played = try await play(buzz(0.6), on: p, calibration: nil, tailSeconds: 0.3)
        let step = try #require(played.steps.first)
        let d = try Self.drive(played, step: step, ratedVolts: p.ratedVoltage)
        #expect(d.kick > d.steady && d.brake < 0 && d.kickSeconds > 0)

        // Envelope ∝ ω², so its 10 % and 90 % of the settled level are at ω = √0.1 and
        // √0.9 of the steady speed S. During the kick ω = K(1 − e^(−t/τ)); after it ω
        // approaches S from ω_k = K(1 − e^(−Tk/τ)).
        let w10 = 0.1.squareRoot() * d.steady, w90 = 0.9.squareRoot() * d.steady
        let kickEnd = d.kick * (1 - exp(-d.kickSeconds / tau))
        #expect(w10 < kickEnd && w90 > kickEnd)  // 10 % within the kick, 90 % after it
        let t10 = -tau * log(1 - w10 / d.kick)
        let t90 = d.kickSeconds + tau * log((d.steady - kickEnd) / (d.steady - w90))
        // Reverse brake toward the target B < 0 from S, until ω is √0.1 of S:
        // ω = B + (S − B) e^(−t/τ).
        let stopModel = tau * log((d.steady - d.brake) / (w10 - d.brake))

        let rise = try ResponseTimes.riseTimeMilliseconds(played.samples, step: step)
        let lag = try ResponseTimes.lagMilliseconds(played.samples, step: step)
        let stop = try ResponseTimes.stopTimeMilliseconds(played.samples, step: step)
        // The envelope is read at half-cycle peaks; at the 10 % level the motor turns at
        // √0.1 ≈ 32 % of its rated 150 Hz, so they are ≈ 10 ms apart there and a 10 %
        // crossing is interpolated across one such gap: 3 ms for lag and stop (measured
        // +1.0 and +2.3 ms). The rise's 90 % end has peaks 3.5 ms apart: 3 % (measured −1 %).
        #expect(abs(rise.value - (t90 - t10) * 1000) < 0.03 * (t90 - t10) * 1000, "\(rise), model \((t90 - t10) * 1000) ms")
        #expect(abs(lag.value - t10 * 1000) < 3, "\(lag), model \(t10 * 1000) ms")
        #expect(abs(stop.value - stopModel * 1000) < 3, "\(stop), model \(stopModel * 1000) ms")
        // Without the brake the motor would coast: ω = S e^(−t/τ), 10 % of ω² at
        // τ·ln(10)/2 = 51.8 ms. The brake must beat that by far.
        #expect(stop.value < 0.5 * tau * log(10.0) / 2 * 1000)
    }
}
