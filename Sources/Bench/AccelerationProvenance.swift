import DeviceInterface
import JSON

/// Where a set of acceleration figures came from, as every report says it: a sensor on
/// the bench measured them ("sensor (LIS3DH, X axis, 470 samples at 1344 Hz)") or the
/// actuator's model computed them ("model (simulated sled)"), and what the sensor lost
/// ("…; 35 samples lost in 2 holes: the sensor's FIFO overran before the board read
/// it"). One place for the wording, so `measure`, `sweep`, `play --plot/--record` and
/// the HIL record and JUnit say the same thing.
public struct AccelerationProvenance: Sendable, Equatable {
    public var origin: AccelerationOrigin
    /// What the source calls itself ("LIS3DH", "simulated sled").
    public var device: String
    /// Samples the figures were computed from.
    public var samples: Int
    /// The sensor's sample rate as the stamps show it, Hz (nil for a model, whose
    /// trace is the physics' own steps, or with fewer than two samples).
    public var rateHz: Double?
    /// The sensor's axis the samples were read along (nil for a model: the motion is
    /// the actuator's own).
    public var axis: AccelerationAxis?
    /// The holes in the recording: samples the sensor took that never reached the host.
    public var losses: [AccelerationLoss]

    public init(
        origin: AccelerationOrigin, device: String, samples: Int, rateHz: Double? = nil, axis: AccelerationAxis? = nil, losses: [AccelerationLoss] = []
    ) {
        self.origin = origin
        self.device = device
        self.samples = samples
        self.rateHz = rateHz
        self.axis = axis
        self.losses = losses
    }

    /// From samples on board time: the rate is the median spacing's (a sensor's stamps
    /// are a period apart within a frame; frames of a few samples each keep to it, and a
    /// hole here and there does not move the median).
    public init(
        origin: AccelerationOrigin, device: String, boardMicroseconds times: [UInt64], axis: AccelerationAxis? = nil, losses: [AccelerationLoss] = []
    ) {
        self.init(
            origin: origin, device: device, samples: times.count, rateHz: origin == .sensor ? Self.rate(times) : nil, axis: axis, losses: losses)
    }

    static func rate(_ times: [UInt64]) -> Double? {
        let steps = zip(times, times.dropFirst()).map { Double($1) - Double($0) }.filter { $0 > 0 }.sorted()
        guard !steps.isEmpty else { return nil }
        return 1e6 / steps[steps.count / 2]
    }

    /// Samples lost in the recording, all holes together.
    public var lostSamples: Int { losses.reduce(0) { $0 + $1.count } }

    /// What the recording should have held: what it holds and what it lost.
    public var expectedSamples: Int { samples + lostSamples }

    /// The lost share of what the recording should have held, 0...1.
    public var lostFraction: Double { expectedSamples > 0 ? Double(lostSamples) / Double(expectedSamples) : 0 }

    /// "35 samples lost in 2 holes (5.0 %): the sensor's FIFO overran before the board
    /// read it"; nil when none were.
    public var lossText: String? {
        guard lostSamples > 0 else { return nil }
        let holes = losses.count == 1 ? "1 hole" : "\(losses.count) holes"
        let causes = AccelerationLoss.Cause.allCases.filter { c in losses.contains { $0.cause == c } }.map(\.text)
        return "\(lostSamples) sample\(lostSamples == 1 ? "" : "s") lost in \(holes) (\(String(format: "%.1f", lostFraction * 100)) % of \(expectedSamples)): "
            + causes.joined(separator: "; ")
    }

    /// "sensor (LIS3DH, X axis, 470 samples at 1344 Hz)", "model (simulated sled)"; the
    /// loss after it, when there was one.
    public var text: String {
        switch origin {
        case .model: return "model (\(device))"
        case .sensor:
            let rate = rateHz.map { " at \(Int($0.rounded())) Hz" } ?? ""
            let axis = axis.map { ", \($0.label) axis" } ?? ""
            let loss = lossText.map { "; \($0)" } ?? ""
            return "sensor (\(device)\(axis), \(samples) sample\(samples == 1 ? "" : "s")\(rate)\(loss))"
        }
    }

    /// The same for a JSON report: "source" is "sensor" or "model"; the detail beside
    /// it; for a sensor the axis it read ("x", "y", "z"), "lostSamples" (0 when none) and
    /// each hole in "losses" (board ms of the first missing sample, how many, why).
    public var jsonFields: [(key: String, value: JSONValue)] {
        var fields: [(key: String, value: JSONValue)] = [
            ("source", .string(origin.rawValue)), ("sourceDevice", .string(device)), ("samples", .number(Double(samples))),
        ]
        if let rateHz { fields.append(("sampleRateHz", .number((rateHz * 10).rounded() / 10))) }
        if origin == .sensor {
            fields.append(("axis", axis.map { .string($0.name) } ?? .null))
            fields.append(("lostSamples", .number(Double(lostSamples))))
            fields.append(
                (
                    "losses",
                    .array(
                        losses.map {
                            .object([
                                (key: "atMs", value: .number(($0.firstMissingMicroseconds / 10).rounded() / 100)),
                                (key: "samples", value: .number(Double($0.count))), (key: "cause", value: .string($0.cause.rawValue)),
                            ])
                        })
                ))
        }
        return fields
    }

    /// Two recordings of one source as one (a sweep's windows): samples and holes added,
    /// the rate and axis kept.
    public func adding(_ other: AccelerationProvenance) -> AccelerationProvenance {
        AccelerationProvenance(
            origin: origin, device: device, samples: samples + other.samples, rateHz: rateHz ?? other.rateHz, axis: axis ?? other.axis,
            losses: losses + other.losses)
    }
}

extension PlayTrace {
    /// Where the samples came from; nil without any.
    public var provenance: AccelerationProvenance? {
        guard let samples, !samples.isEmpty else { return nil }
        return AccelerationProvenance(
            origin: origin ?? .model, device: source ?? "unnamed source", boardMicroseconds: samples.map(\.boardMicroseconds), axis: axis,
            losses: losses)
    }
}

extension AccelerationTrace {
    /// Where the samples came from.
    public var provenance: AccelerationProvenance {
        AccelerationProvenance(
            origin: origin, device: source, boardMicroseconds: timeMilliseconds.map { UInt64(max(0, ($0 * 1000).rounded())) }, axis: axis,
            losses: losses)
    }
}
