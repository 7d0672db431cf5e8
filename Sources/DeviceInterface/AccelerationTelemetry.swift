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

/// A device capability: acceleration over board time, where a simulator or a sensor
/// provides it. Boards without one simply do not offer it.
public protocol AccelerationTelemetry: AnyObject {
    /// What the source calls itself in a plot legend ("simulated sled", "LIS3DH").
    var accelerationSource: String { get }
    /// Sensor or model (a model unless the source says otherwise).
    var accelerationOrigin: AccelerationOrigin { get }
    /// Samples at or after `boardMicroseconds`, oldest first.
    func acceleration(since boardMicroseconds: UInt64) -> [AccelerationSample]
    /// Forgets what was recorded so far (a bench command's "from here on").
    func clearAcceleration()
}

extension AccelerationTelemetry {
    public var accelerationOrigin: AccelerationOrigin { .model }
}
