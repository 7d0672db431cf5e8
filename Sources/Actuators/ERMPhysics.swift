import Foundation

/// An eccentric rotating mass motor as a first-order speed response:
///
///     ω' = (ω_rated · u / V_rated − ω) / τ
///
/// which is a DC motor with back-EMF constant Ke = V_rated / ω_rated whose mechanical
/// time constant is τ. The eccentric mass turns at ω; its centripetal force m·r·ω²
/// shakes the sled, so acceleration = A_rated · (ω/ω_rated)² · sin θ, with A_rated
/// the datasheet's normalised amplitude. Driving reverse (braking) pulls ω down
/// faster than coasting; the model stops at zero speed rather than spinning backwards
/// (the DRV2605 ends braking at zero back-EMF).
public struct ERMPhysics: Sendable, Equatable {
    public let ratedVolts: Double
    public let ratedAngularSpeed: Double
    public let timeConstantSeconds: Double
    public let ratedAccelerationG: Double
    public let coilResistanceOhms: Double

    public private(set) var angularSpeed = 0.0
    public private(set) var angle = 0.0
    public private(set) var current = 0.0

    public init(profile: ActuatorProfile) {
        let erm = profile.erm ?? .init(ratedSpeedRPM: 12_000, timeConstantMilliseconds: 40)
        self.init(
            ratedVolts: profile.ratedVoltage, ratedSpeedRPM: erm.ratedSpeedRPM,
            timeConstantSeconds: erm.timeConstantMilliseconds / 1000, ratedAccelerationG: profile.ratedPeakAccelerationG,
            coilResistanceOhms: profile.coilResistanceOhms)
    }

    public init(ratedVolts: Double, ratedSpeedRPM: Double, timeConstantSeconds: Double, ratedAccelerationG: Double, coilResistanceOhms: Double) {
        self.ratedVolts = ratedVolts
        self.ratedAngularSpeed = ratedSpeedRPM * 2 * Double.pi / 60
        self.timeConstantSeconds = timeConstantSeconds
        self.ratedAccelerationG = ratedAccelerationG
        self.coilResistanceOhms = coilResistanceOhms
    }

    /// Ke in V·s/rad.
    public var backEMFConstant: Double { ratedVolts / ratedAngularSpeed }
    public var backEMFVolts: Double { backEMFConstant * angularSpeed }
    /// For an ERM the back-EMF is DC: its amplitude is itself.
    public var backEMFAmplitude: Double { backEMFVolts }
    public var rotationHz: Double { angularSpeed / (2 * Double.pi) }
    public var vibrationEnvelopeG: Double {
        let r = angularSpeed / ratedAngularSpeed
        return ratedAccelerationG * r * r
    }
    public var sledAccelerationG: Double { vibrationEnvelopeG * sin(angle) }

    public mutating func step(volts: Double, seconds dt: Double) {
        current = (volts - backEMFVolts) / coilResistanceOhms
        let target = ratedAngularSpeed * volts / ratedVolts
        angularSpeed += (target - angularSpeed) / timeConstantSeconds * dt
        if angularSpeed < 0 { angularSpeed = 0 }
        angle += angularSpeed * dt
        if angle > 2 * Double.pi { angle -= 2 * Double.pi }
    }

    public mutating func rest() {
        angularSpeed = 0
        angle = 0
        current = 0
    }
}

