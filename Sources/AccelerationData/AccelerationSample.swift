/// One acceleration reading: what a simulated sled computes or a sensor on the
/// bench (an accelerometer on the actuator) measures.
public struct AccelerationSample: Sendable, Equatable {
    /// Board time, µs (the clock stamped commands run on).
    public var boardMicroseconds: UInt64
    public var g: Double
    public init(boardMicroseconds: UInt64, g: Double) {
        self.boardMicroseconds = boardMicroseconds
        self.g = g
    }
}

/// Where acceleration figures come from: an accelerometer on the bench measured them,
/// or a model of the actuator computed them. Every measurement says which.
public enum AccelerationOrigin: String, Sendable, Equatable, Codable {
    case sensor, model
}
