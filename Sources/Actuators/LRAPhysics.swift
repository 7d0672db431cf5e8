/// A linear resonant actuator as a mass on a spring, driven by a voice coil:
///
///     m x'' = Bl i - c x' - k x,    i = (u - Bl x') / R
///
/// k and c come from the resonant frequency and mechanical Q; the force factor Bl is
/// solved so that the rated voltage, driven at resonance as the DRV2605 does (a square
/// wave in phase with the mass velocity), gives the datasheet's rated acceleration on
/// its test sled. The sled feels the reaction of the moving mass: a_sled = m x'' / M.
/// Coil inductance is neglected (its pole is far above 200 Hz for these parts).
public struct LRAPhysics: Sendable, Equatable {
    public static let standardGravity = 9.80665

    public let resonantFrequencyHz: Double
    public let qualityFactor: Double
    public let movingMassKg: Double
    public let testMassKg: Double
    public let coilResistanceOhms: Double
    public let springNPerM: Double
    public let dampingNsPerM: Double
    /// Bl, in N/A (equivalently V·s/m).
    public let forceFactor: Double

    public private(set) var position = 0.0
    public private(set) var velocity = 0.0
    public private(set) var massAcceleration = 0.0
    public private(set) var current = 0.0

    public init(profile: ActuatorProfile) {
        let lra = profile.lra ?? .init(resonantFrequencyHz: 175, qualityFactor: 20, movingMassGrams: 1)
        self.init(
            resonantFrequencyHz: lra.resonantFrequencyHz, qualityFactor: lra.qualityFactor,
            movingMassKg: lra.movingMassGrams / 1000, testMassKg: profile.testMassGrams / 1000,
            coilResistanceOhms: profile.coilResistanceOhms, ratedRMSVolts: profile.ratedVoltage,
            ratedAccelerationG: profile.ratedPeakAccelerationG)
    }

    public init(
        resonantFrequencyHz: Double, qualityFactor: Double, movingMassKg: Double, testMassKg: Double,
        coilResistanceOhms: Double, ratedRMSVolts: Double, ratedAccelerationG: Double
    ) {
        self.resonantFrequencyHz = resonantFrequencyHz
        self.qualityFactor = qualityFactor
        self.movingMassKg = movingMassKg
        self.testMassKg = testMassKg
        self.coilResistanceOhms = coilResistanceOhms
        let w0 = 2 * Double.pi * resonantFrequencyHz
        springNPerM = movingMassKg * w0 * w0
        dampingNsPerM = movingMassKg * w0 / qualityFactor
        forceFactor = Self.solveForceFactor(
            w0: w0, mass: movingMassKg, testMass: testMassKg, damping: movingMassKg * w0 / qualityFactor,
            resistance: coilResistanceOhms, rmsVolts: ratedRMSVolts, accelerationG: ratedAccelerationG)
    }

    /// Velocity amplitude U needed for the rated sled acceleration, then Bl from the
    /// steady state at resonance: U (c + Bl²/R) = Bl V1 / R, V1 = 4/π V (square-wave
    /// fundamental). Of the two roots we take the smaller Bl (weak electrical damping,
    /// as in real LRAs whose ring-down Q stays high); if the profile asks for more than
    /// any Bl can give, we take the Bl of maximum response.
    static func solveForceFactor(
        w0: Double, mass: Double, testMass: Double, damping: Double, resistance: Double, rmsVolts: Double,
        accelerationG: Double
    ) -> Double {
        let sledAcceleration = accelerationG * standardGravity
        let u = sledAcceleration * testMass / mass / w0
        let v1 = 4 / Double.pi * rmsVolts
        let a = u / resistance, b = -v1 / resistance, c = u * damping
        let disc = b * b - 4 * a * c
        guard disc >= 0 else { return (damping * resistance).squareRoot() }
        return (-b - disc.squareRoot()) / (2 * a)
    }

    public var angularResonance: Double { 2 * Double.pi * resonantFrequencyHz }

    /// Back-EMF the coil sees now (its sign is the velocity's: what the chip's
    /// zero-cross detector watches).
    public var backEMFVolts: Double { forceFactor * velocity }

    /// Amplitude of the oscillation expressed as back-EMF (phase-independent).
    public var backEMFAmplitude: Double {
        let w0 = angularResonance
        return forceFactor * (velocity * velocity + w0 * w0 * position * position).squareRoot()
    }

    public var sledAccelerationG: Double { movingMassKg * massAcceleration / testMassKg / Self.standardGravity }

    /// Semi-implicit Euler: stable for the 10 kHz step the chip model uses (ω0·dt ≈ 0.15).
    public mutating func step(volts: Double, seconds dt: Double) {
        current = (volts - forceFactor * velocity) / coilResistanceOhms
        let force = forceFactor * current - dampingNsPerM * velocity - springNPerM * position
        massAcceleration = force / movingMassKg
        velocity += massAcceleration * dt
        position += velocity * dt
    }

    /// Steady back-EMF amplitude for a square drive of `volts` at resonance.
    public func steadyBackEMFAmplitude(squareVolts volts: Double) -> Double {
        let v1 = 4 / Double.pi * volts
        let u = forceFactor * v1 / coilResistanceOhms / (dampingNsPerM + forceFactor * forceFactor / coilResistanceOhms)
        return forceFactor * u
    }

    public mutating func rest() {
        position = 0
        velocity = 0
        massAcceleration = 0
        current = 0
    }
}
