/// The actuator attached to the chip's outputs, as the chip model sees it.
public enum Actuator: Sendable, Equatable {
    case lra(LRAPhysics)
    case erm(ERMPhysics)

    public init(profile: ActuatorProfile) {
        switch profile.kind {
        case .lra: self = .lra(LRAPhysics(profile: profile))
        case .erm: self = .erm(ERMPhysics(profile: profile))
        }
    }

    public var kind: ActuatorProfile.Kind {
        switch self {
        case .lra: .lra
        case .erm: .erm
        }
    }

    public var coilResistanceOhms: Double {
        switch self {
        case .lra(let a): a.coilResistanceOhms
        case .erm(let a): a.coilResistanceOhms
        }
    }

    public var sledAccelerationG: Double {
        switch self {
        case .lra(let a): a.sledAccelerationG
        case .erm(let a): a.sledAccelerationG
        }
    }

    public var backEMFVolts: Double {
        switch self {
        case .lra(let a): a.backEMFVolts
        case .erm(let a): a.backEMFVolts
        }
    }

    public var backEMFAmplitude: Double {
        switch self {
        case .lra(let a): a.backEMFAmplitude
        case .erm(let a): a.backEMFAmplitude
        }
    }

    public var current: Double {
        switch self {
        case .lra(let a): a.current
        case .erm(let a): a.current
        }
    }

    public mutating func step(volts: Double, seconds: Double) {
        switch self {
        case .lra(var a):
            a.step(volts: volts, seconds: seconds)
            self = .lra(a)
        case .erm(var a):
            a.step(volts: volts, seconds: seconds)
            self = .erm(a)
        }
    }

    public mutating func rest() {
        switch self {
        case .lra(var a):
            a.rest()
            self = .lra(a)
        case .erm(var a):
            a.rest()
            self = .erm(a)
        }
    }
}
