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
    /// The sensor's axis the samples are read along; nil for a source without axes (a
    /// model computes the motion along the actuator's own).
    var accelerationAxis: AccelerationAxis? { get }
    /// Samples the source lost at or after `boardMicroseconds` (holes in its timeline),
    /// oldest first: a sensor's FIFO that overran, frames lost on the link. A model
    /// loses none.
    func accelerationLosses(since boardMicroseconds: UInt64) -> [AccelerationLoss]
}

extension AccelerationTelemetry {
    public var accelerationOrigin: AccelerationOrigin { .model }
    public var accelerationAxis: AccelerationAxis? { nil }
    public func accelerationLosses(since boardMicroseconds: UInt64) -> [AccelerationLoss] { [] }
}
