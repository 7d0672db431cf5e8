import Actuators
import Measurements

/// How a figure's unit is written as OpenMetrics: the unit a family's name ends with
/// and the conversion from the record's value. The one table of it.
///
/// OpenMetrics (specification/OpenMetrics.md, "Units and Base Units") wants base
/// units: seconds, not milliseconds; ratios, not percentages; and where conversion is
/// possible, SI over a customary unit, so g (standard gravity, 9.80665 m/s² by
/// definition) is given in metres per second squared. A unit, when there is one, is the
/// family name's last part (`# UNIT` must be its suffix); a register's code and a pure
/// number (a Q) have none, so no `# UNIT` line (an empty UNIT is as none).
///
/// | record unit | OpenMetrics unit | value |
/// |---|---|---|
/// | ms | seconds | ÷ 1000 |
/// | Hz | hertz | as recorded |
/// | g | meters_per_second_squared | × 9.80665 |
/// | % | ratio | ÷ 100 |
/// | bytes | bytes | as recorded |
/// | dB | decibels | as recorded (a logarithmic ratio has no base unit to convert to; OpenMetrics' own examples leave units it does not list as they are) |
/// | code, 1 | (none) | as recorded |
public struct OpenMetricUnit: Sendable, Equatable {
    /// The unit's name, the family name's suffix; nil for none.
    public var name: String?
    public var conversion: Conversion

    public enum Conversion: Sendable, Equatable {
        case none
        /// The record's value divided by this (one correctly rounded IEEE 754 division,
        /// so a reader doing the same gets the same double).
        case divide(by: Double)
        case multiply(by: Double)
    }

    public init(_ unit: MeasurementUnit) {
        switch unit {
        case .milliseconds: self.init(name: "seconds", conversion: .divide(by: 1000))
        case .hertz: self.init(name: "hertz", conversion: .none)
        case .g: self.init(name: "meters_per_second_squared", conversion: .multiply(by: LRAPhysics.standardGravity))
        case .percent: self.init(name: "ratio", conversion: .divide(by: 100))
        case .bytes: self.init(name: "bytes", conversion: .none)
        case .decibels: self.init(name: "decibels", conversion: .none)
        case .registerCode, .one: self.init(name: nil, conversion: .none)
        }
    }

    init(name: String?, conversion: Conversion) {
        self.name = name
        self.conversion = conversion
    }

    public func value(_ recorded: Double) -> Double {
        switch conversion {
        case .none: recorded
        case .divide(let d): recorded / d
        case .multiply(let m): recorded * m
        }
    }
}
