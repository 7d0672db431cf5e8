import DeviceInterface
import Foundation

/// Acceleration over time, as a procedure summarises it and a command plots it.
public struct AccelerationTrace: Sendable, Equatable {
    public var timeMilliseconds: [Double]
    public var accelerationG: [Double]
    /// What measured or simulated it ("simulated sled").
    public var source: String = "simulated sled"
    /// Whether a sensor on the bench measured it or the actuator's model computed it.
    public var origin: AccelerationOrigin = .model
    /// The sensor's axis it was read along (nil for a model).
    public var axis: AccelerationAxis?
    /// Samples the source took in its span that never reached the host, oldest first.
    public var losses: [AccelerationLoss] = []

    public init(
        timeMilliseconds: [Double], accelerationG: [Double], source: String = "simulated sled", origin: AccelerationOrigin = .model,
        axis: AccelerationAxis? = nil, losses: [AccelerationLoss] = []
    ) {
        self.timeMilliseconds = timeMilliseconds
        self.accelerationG = accelerationG
        self.source = source
        self.origin = origin
        self.axis = axis
        self.losses = losses
    }

    /// "LIS3DH (sensor)", "simulated sled (model)": the source as reports name it.
    public var sourceText: String { "\(source) (\(origin.rawValue))" }

    public var peakG: Double { accelerationG.map(abs).max() ?? 0 }

    /// Last time |a| was above `fraction` of the peak: when the effect had died away.
    public func settledMilliseconds(fraction: Double = 0.1) -> Double? {
        let threshold = fraction * peakG
        guard threshold > 0, let i = accelerationG.lastIndex(where: { abs($0) > threshold }) else { return nil }
        return timeMilliseconds[i] - (timeMilliseconds.first ?? 0)
    }

    /// "0.586 g": a peak as every report prints it and every plot labels it.
    public static func peakText(_ g: Double) -> String { String(format: "%.3f g", g) }
}
