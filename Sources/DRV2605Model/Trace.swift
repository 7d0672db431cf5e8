/// The model's recorded output, one sample per physics step.
public struct Trace: Sendable, Equatable {
    public var timeMicroseconds: [UInt64] = []
    /// Sled acceleration in g.
    public var accelerationG: [Double] = []
    /// Voltage across the actuator (after compensation and clamping).
    public var driveVolts: [Double] = []

    public init() {}

    public var count: Int { timeMicroseconds.count }
    public var timeMilliseconds: [Double] { timeMicroseconds.map { Double($0) / 1000 } }

    mutating func append(time: UInt64, acceleration: Double, drive: Double) {
        timeMicroseconds.append(time)
        accelerationG.append(acceleration)
        driveVolts.append(drive)
    }

    /// Peak |acceleration| over each window of `windowMicroseconds` (the envelope a bench
    /// accelerometer plot shows), as (window start µs, peak g).
    public func envelope(windowMicroseconds: UInt64) -> [(time: UInt64, peakG: Double)] {
        guard let first = timeMicroseconds.first else { return [] }
        var out: [(UInt64, Double)] = []
        var start = first, peak = 0.0
        for (t, a) in zip(timeMicroseconds, accelerationG) {
            if t >= start + windowMicroseconds {
                out.append((start, peak))
                start += windowMicroseconds * ((t - start) / windowMicroseconds)
                peak = 0
            }
            peak = max(peak, abs(a))
        }
        out.append((start, peak))
        return out
    }

    /// Largest |acceleration| between two times.
    public func peakG(from: UInt64 = 0, to: UInt64 = .max) -> Double {
        var peak = 0.0
        for (t, a) in zip(timeMicroseconds, accelerationG) where t >= from && t <= to { peak = max(peak, abs(a)) }
        return peak
    }

    /// First time the envelope reaches `fraction` of `reference` g, at or after `from`.
    public func firstTime(reaching fraction: Double, of reference: Double, from: UInt64 = 0, windowMicroseconds: UInt64 = 2_000) -> UInt64? {
        envelope(windowMicroseconds: windowMicroseconds).first { $0.time >= from && $0.peakG >= fraction * reference }?.time
    }

    /// Last time the envelope is at or above `thresholdG`, at or after `from`.
    public func lastTime(above thresholdG: Double, from: UInt64 = 0, windowMicroseconds: UInt64 = 2_000) -> UInt64? {
        envelope(windowMicroseconds: windowMicroseconds).last { $0.time >= from && $0.peakG >= thresholdG }?.time
    }
}
