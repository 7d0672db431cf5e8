import DeviceInterface
import JSON

/// Where a set of acceleration figures came from, as every report says it: a sensor on
/// the bench measured them ("sensor (LIS3DH, 470 samples at 1344 Hz)") or the actuator's
/// model computed them ("model (simulated sled)"). One place for the wording, so
/// `measure`, `sweep`, `play --plot/--record` and the HIL record say the same thing.
public struct AccelerationProvenance: Sendable, Equatable {
    public var origin: AccelerationOrigin
    /// What the source calls itself ("LIS3DH", "simulated sled").
    public var device: String
    /// Samples the figures were computed from.
    public var samples: Int
    /// The sensor's sample rate as the stamps show it, Hz (nil for a model, whose
    /// trace is the physics' own steps, or with fewer than two samples).
    public var rateHz: Double?

    public init(origin: AccelerationOrigin, device: String, samples: Int, rateHz: Double? = nil) {
        self.origin = origin
        self.device = device
        self.samples = samples
        self.rateHz = rateHz
    }

    /// From samples on board time: the rate is the median spacing's (a sensor's stamps
    /// are a period apart within a frame; frames of a few samples each keep to it).
    public init(origin: AccelerationOrigin, device: String, boardMicroseconds times: [UInt64]) {
        self.init(origin: origin, device: device, samples: times.count, rateHz: origin == .sensor ? Self.rate(times) : nil)
    }

    static func rate(_ times: [UInt64]) -> Double? {
        let steps = zip(times, times.dropFirst()).map { Double($1) - Double($0) }.filter { $0 > 0 }.sorted()
        guard !steps.isEmpty else { return nil }
        return 1e6 / steps[steps.count / 2]
    }

    /// "sensor (LIS3DH, 470 samples at 1344 Hz)", "model (simulated sled)".
    public var text: String {
        switch origin {
        case .model: return "model (\(device))"
        case .sensor:
            let rate = rateHz.map { " at \(Int($0.rounded())) Hz" } ?? ""
            return "sensor (\(device), \(samples) sample\(samples == 1 ? "" : "s")\(rate))"
        }
    }

    /// The same for a JSON report: "source" is "sensor" or "model"; the detail beside it.
    public var jsonFields: [(key: String, value: JSONValue)] {
        var fields: [(key: String, value: JSONValue)] = [
            ("source", .string(origin.rawValue)), ("sourceDevice", .string(device)), ("samples", .number(Double(samples))),
        ]
        if let rateHz { fields.append(("sampleRateHz", .number((rateHz * 10).rounded() / 10))) }
        return fields
    }

    /// Two recordings of one source as one (a sweep's windows): samples added, the rate kept.
    public func adding(_ other: AccelerationProvenance) -> AccelerationProvenance {
        AccelerationProvenance(origin: origin, device: device, samples: samples + other.samples, rateHz: rateHz ?? other.rateHz)
    }
}

extension PlayTrace {
    /// Where the samples came from; nil without any.
    public var provenance: AccelerationProvenance? {
        guard let samples, !samples.isEmpty else { return nil }
        return AccelerationProvenance(
            origin: origin ?? .model, device: source ?? "unnamed source", boardMicroseconds: samples.map(\.boardMicroseconds))
    }
}

extension AccelerationTrace {
    /// Where the samples came from.
    public var provenance: AccelerationProvenance {
        AccelerationProvenance(
            origin: origin, device: source, boardMicroseconds: timeMilliseconds.map { UInt64(max(0, ($0 * 1000).rounded())) })
    }
}
