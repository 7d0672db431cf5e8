import Actuators
import Testing

/// The physics on its own, driven by ideal voltages (no chip).
struct PhysicsTests {
    static let lra = LRAPhysics(
        resonantFrequencyHz: 175, qualityFactor: 12, movingMassKg: 0.002, testMassKg: 0.1, coilResistanceOhms: 25,
        ratedRMSVolts: 2.0, ratedAccelerationG: 0.7)
    static let dt = 1e-4

    /// Drives a square wave in phase with the velocity (what the closed-loop chip does).
    func runLRA(_ lra: inout LRAPhysics, volts: Double, seconds: Double, atHz hz: Double? = nil) -> Double {
        var peak = 0.0
        var t = 0.0
        let steps = Int(seconds / Self.dt)
        for i in 0..<steps {
            let u: Double
            if let hz { u = (t * hz).truncatingRemainder(dividingBy: 1) < 0.5 ? volts : -volts } else { u = lra.velocity >= 0 ? volts : -volts }
            lra.step(volts: u, seconds: Self.dt)
            t += Self.dt
            if i > steps * 3 / 4 { peak = max(peak, abs(lra.sledAccelerationG)) }
        }
        return peak
    }

    @Test func lraAtRatedVoltageOnResonanceReachesTheRatedAcceleration() {
        var lra = Self.lra
        let peak = runLRA(&lra, volts: 2.0, seconds: 0.5)
        // Square-wave harmonics add a little on top of the fundamental's 0.7 g.
        #expect(abs(peak - 0.7) < 0.1)
    }

    @Test func lraDrivenOffResonanceMovesLess() {
        var a = Self.lra, b = Self.lra
        let on = runLRA(&a, volts: 2.0, seconds: 0.5, atHz: 175)
        let off = runLRA(&b, volts: 2.0, seconds: 0.5, atHz: 230)
        #expect(off < 0.5 * on)
    }

    @Test func lraRingsDownWithItsQ() {
        var lra = Self.lra
        _ = runLRA(&lra, volts: 2.0, seconds: 0.3)
        let a0 = lra.backEMFAmplitude
        // Free decay: envelope ~ exp(-w0 t / 2Q_total); after 20 ms clearly smaller, not zero.
        for _ in 0..<200 { lra.step(volts: 0, seconds: Self.dt) }
        #expect(lra.backEMFAmplitude < 0.6 * a0 && lra.backEMFAmplitude > 0.05 * a0)
    }

    @Test func ermReachesRatedSpeedWithItsTimeConstant() {
        var erm = ERMPhysics(ratedVolts: 3, ratedSpeedRPM: 12_000, timeConstantSeconds: 0.04, ratedAccelerationG: 1, coilResistanceOhms: 30)
        for _ in 0..<400 { erm.step(volts: 3, seconds: Self.dt) }  // one time constant
        #expect(abs(erm.angularSpeed / erm.ratedAngularSpeed - 0.632) < 0.01)
        for _ in 0..<4000 { erm.step(volts: 3, seconds: Self.dt) }
        #expect(abs(erm.vibrationEnvelopeG - 1) < 0.01)
        #expect(abs(erm.backEMFVolts - 3) < 0.01)
    }

    @Test func ermReverseDriveStopsFasterThanCoastingAndDoesNotSpinBackwards() {
        var coast = ERMPhysics(ratedVolts: 3, ratedSpeedRPM: 12_000, timeConstantSeconds: 0.04, ratedAccelerationG: 1, coilResistanceOhms: 30)
        for _ in 0..<4000 { coast.step(volts: 3, seconds: Self.dt) }
        var brake = coast
        for _ in 0..<300 {
            coast.step(volts: 0, seconds: Self.dt)
            brake.step(volts: -3, seconds: Self.dt)
        }
        #expect(brake.angularSpeed < coast.angularSpeed / 2)
        for _ in 0..<1000 { brake.step(volts: -3, seconds: Self.dt) }
        #expect(brake.angularSpeed == 0)
    }
}
