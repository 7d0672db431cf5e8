import DRV2605Model

/// The actuator's acceleration as a bench accelerometer on the sled would read it.
public struct AccelerationSample: Sendable, Equatable {
    /// Virtual µs since power-up (the board's `time`).
    public var time: UInt64
    public var g: Double
}

extension SimulatedBoard {
    /// Samples at the physics rate (10 kHz) between two virtual times, inclusive.
    public func acceleration(from start: UInt64 = 0, to end: UInt64 = .max) -> [AccelerationSample] {
        let trace = chip.trace
        var out: [AccelerationSample] = []
        for (t, g) in zip(trace.timeMicroseconds, trace.accelerationG) where t >= start && t <= end {
            out.append(AccelerationSample(time: t, g: g))
        }
        return out
    }

    /// Largest |acceleration| in g between two virtual times.
    public func peakAcceleration(from start: UInt64 = 0, to end: UInt64 = .max) -> Double {
        chip.trace.peakG(from: start, to: end)
    }

    /// The acceleration now, in g.
    public var accelerationG: Double { chip.accelerationG }

    /// Forgets the recorded samples (the trace holds about 200 s).
    public func clearAcceleration() { chip.clearTrace() }
}
