import AccelerationData

/// How fast the actuator follows its drive, from the acceleration envelope (`Envelope`)
/// and the stamped drive (`DriveStep`): rise time, stop time, lag. Times are board µs in,
/// milliseconds out.
public enum ResponseTimes {
    /// The fraction of the settled level both rise time and lag start from. 10 % is
    /// the usual start of a rise time, so lag + rise time = time to 90 %; a relative
    /// threshold holds for any actuator strength and sensor gain, and stays above a
    /// sensor's noise floor whenever the response is ten times that floor.
    public static let onsetFraction = 0.1
    /// The part of a drive step, at its end, whose mean envelope is the settled level.
    public static let settledPart = 0.25

    /// The envelope's settled level during a step: its mean over the last quarter of
    /// the step (before the drive's end, or the recording's end if the drive stays on).
    /// The mean and not the maximum, so an overdrive's overshoot does not count.
    public static func settledLevelG(_ envelope: Envelope, step: DriveStep) -> Double? {
        let start = Double(step.startMicroseconds)
        guard envelope.covers(microseconds: start) else { return nil }
        guard let endMicroseconds = step.endMicroseconds ?? envelope.points.last?.boardMicroseconds else { return nil }
        let end = Double(endMicroseconds)
        guard end > start else { return nil }
        return envelope.mean(fromMicroseconds: end - settledPart * (end - start), toMicroseconds: end)
    }

    /// Rise time 10→90 % of the settled level after the step's start.
    public static func riseTimeMilliseconds(_ samples: [AccelerationSample], step: DriveStep) throws(MeasurementError) -> BenchMeasurement {
        let name = "rise time 10→90 %"
        let envelope = Envelope(samples)
        guard !envelope.isEmpty else { throw .noAcceleration(measurement: name) }
        guard let settled = settledLevelG(envelope, step: step), settled > 0 else { throw .noAcceleration(measurement: name) }
        let start = Double(step.startMicroseconds)
        let low = onsetFraction * settled, high = 0.9 * settled
        try NoiseFloor.check(low, in: samples, measurement: name)
        guard let t10 = envelope.firstCrossing(low, rising: true, fromMicroseconds: start) else {
            throw .levelNotReached(measurement: name, levelG: low, afterMilliseconds: start / 1000)
        }
        guard let t90 = envelope.firstCrossing(high, rising: true, fromMicroseconds: t10) else {
            throw .levelNotReached(measurement: name, levelG: high, afterMilliseconds: t10 / 1000)
        }
        return BenchMeasurement(name: name, unit: .milliseconds, value: (t90 - t10) / 1000)
    }

    /// Lag: from the stamp of the command that starts the step to motion onset, the
    /// envelope crossing `onsetFraction` of the settled level.
    public static func lagMilliseconds(_ samples: [AccelerationSample], step: DriveStep) throws(MeasurementError) -> BenchMeasurement {
        let name = "lag (drive stamp → motion onset)"
        let envelope = Envelope(samples)
        guard let settled = settledLevelG(envelope, step: step), settled > 0 else { throw .noAcceleration(measurement: name) }
        let start = Double(step.startMicroseconds)
        try NoiseFloor.check(onsetFraction * settled, in: samples, measurement: name)
        guard let onset = envelope.firstCrossing(onsetFraction * settled, rising: true, fromMicroseconds: start) else {
            throw .levelNotReached(measurement: name, levelG: onsetFraction * settled, afterMilliseconds: start / 1000)
        }
        return BenchMeasurement(name: name, unit: .milliseconds, value: (onset - start) / 1000)
    }

    /// Stop time: from the stamp of the command that brings the drive to 0 to the
    /// envelope falling below 10 % of its level at that stamp (the last half cycle's
    /// peak before it).
    public static func stopTimeMilliseconds(_ samples: [AccelerationSample], driveEndMicroseconds end: UInt64) throws(MeasurementError) -> BenchMeasurement {
        let name = "stop time (to 10 %)"
        let envelope = Envelope(samples)
        guard !envelope.isEmpty else { throw .noAcceleration(measurement: name) }
        let t0 = Double(end)
        guard envelope.covers(microseconds: t0) else { throw .noAcceleration(measurement: name) }
        // The level at the stamp: the last half cycle's peak before it, not a line drawn
        // across the stop's kink to the next (smaller) peak, which would start the clock
        // from a level up to half a cycle's decay too low.
        let level = envelope.lastPeak(atOrBeforeMicroseconds: t0)?.g ?? envelope.value(atMicroseconds: t0)
        guard level > 0 else { return BenchMeasurement(name: name, unit: .milliseconds, value: 0) }
        try NoiseFloor.check(0.1 * level, in: samples, measurement: name)
        guard let t = envelope.firstCrossing(0.1 * level, rising: false, fromMicroseconds: t0) else {
            throw .levelNotReached(measurement: name, levelG: 0.1 * level, afterMilliseconds: t0 / 1000)
        }
        return BenchMeasurement(name: name, unit: .milliseconds, value: (t - t0) / 1000)
    }

    /// Stop time after a step's end; a step whose drive never ends cannot be timed.
    public static func stopTimeMilliseconds(_ samples: [AccelerationSample], step: DriveStep) throws(MeasurementError) -> BenchMeasurement {
        guard let end = step.endMicroseconds else { throw .noDriveStep(measurement: "stop time (to 10 %)") }
        return try stopTimeMilliseconds(samples, driveEndMicroseconds: end)
    }
}
