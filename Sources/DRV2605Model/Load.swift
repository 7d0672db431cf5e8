import Actuators

/// What is wired to OUT+ / OUT-.
public enum Load: Sendable, Equatable {
    /// Nothing (a broken wire or no actuator): diagnostics and calibration fail.
    case open
    /// The outputs are shorted: diagnostics fail; driving trips over-current.
    case shorted
    case actuator(Actuator)

    public var actuator: Actuator? {
        if case .actuator(let a) = self { return a }
        return nil
    }
}

/// Faults a test can force.
public enum InjectedFault: Sendable, Equatable, CaseIterable {
    /// The die is too hot: OVER_TEMP latches and the output stops while it lasts.
    case overTemperature
    /// The output current limit trips: OC_DETECT latches and the output stops.
    case overCurrent
}
