import ArgumentParser
import DeviceInterface

/// `--axis x|y|z`: which of a bench accelerometer's axes `measure`, `sweep` and `play`
/// read, the one the actuator moves along (Hardware/boards/accelerometer.md,
/// "Mounting"). The sensor streams all three; the host keeps one. X by default: a sled
/// on rails, as the emulations mount the sensor; a coin LRA glued flat to it moves
/// along Z. A model's figures are the actuator's own motion and have no axis.
public struct AccelerometerAxisOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The bench accelerometer's axis to read, the one the actuator moves along: x (a sled on rails, the default), y, or z (a coin LRA with the sensor flat on it).",
            valueName: "x|y|z"))
    public var axis: AccelerationAxis = .x

    public init() {}
}

extension AccelerationAxis: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public var defaultValueDescription: String { name }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}
