import AccelerationData

/// Peak and RMS acceleration of a recorded trace, in g.
public enum AccelerationLevels {
    /// The samples whose board time lies in `window` (all of them when nil).
    static func samples(_ samples: [AccelerationSample], in window: ClosedRange<UInt64>?) -> [AccelerationSample] {
        guard let window else { return samples }
        return samples.filter { window.contains($0.boardMicroseconds) }
    }

    /// Largest |a| in the window: what a datasheet's "peak" (zero-to-peak) acceleration
    /// is compared against.
    public static func peakG(_ samples: [AccelerationSample], in window: ClosedRange<UInt64>? = nil) throws(MeasurementError) -> BenchMeasurement {
        let s = Self.samples(samples, in: window)
        guard !s.isEmpty else { throw .noAcceleration(measurement: "peak acceleration") }
        return BenchMeasurement(name: "peak acceleration", unit: .g, value: s.map { abs($0.g) }.max() ?? 0)
    }

    /// Root mean square of a over the window, each sample weighted by the time to the
    /// next (sample rates vary between a sensor's FIFO reads). A sine of amplitude A over
    /// whole cycles gives A/√2. A step across one of `holes` (samples the sensor lost)
    /// is left out: the sample before a hole stands for its own period, not for the
    /// hole's width (which weighted it tens of times over and read 35-75 % high).
    public static func rmsG(
        _ samples: [AccelerationSample], in window: ClosedRange<UInt64>? = nil, holes: [AccelerationLoss] = []
    ) throws(MeasurementError) -> BenchMeasurement {
        let s = Self.samples(samples, in: window)
        guard !s.isEmpty else { throw .noAcceleration(measurement: "RMS acceleration") }
        guard s.count > 1 else { return BenchMeasurement(name: "RMS acceleration", unit: .g, value: abs(s[0].g)) }
        var sum = 0.0, span = 0.0
        for i in 0..<(s.count - 1) {
            let a = Double(s[i].boardMicroseconds), b = Double(s[i + 1].boardMicroseconds)
            if holes.contains(where: { $0.overlaps(a...b) }) { continue }
            let dt = b - a
            sum += s[i].g * s[i].g * dt
            span += dt
        }
        return BenchMeasurement(name: "RMS acceleration", unit: .g, value: span > 0 ? (sum / span).squareRoot() : abs(s[0].g))
    }
}
