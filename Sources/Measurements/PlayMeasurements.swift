import AccelerationData

/// Point 4's measurements for one play: peak and RMS acceleration over the whole
/// recording, and rise time, lag and stop time of the drive's first step. What cannot
/// be measured (no accelerometer, no drive step, a level never reached) is kept as the
/// error that says why, beside the figures that could. Over the recording's plain
/// values; Bench reads them out of a play's trace (`PlayMeasurements(trace:)`).
public struct PlayMeasurements: Sendable {
    public var measurements: [BenchMeasurement]
    public var unmeasured: [MeasurementError]
    /// How many drive steps the play had (the timings are the first's).
    public var driveSteps: Int
    /// Where every acceleration figure here came from: "sensor" (a bench accelerometer)
    /// or "model" (the actuator's physics); nil without acceleration.
    public var source: AccelerationOrigin?

    /// The most of a recording's samples a sensor may have lost for its peak and RMS
    /// still to be given (beside the loss, which every report prints with them): past
    /// it, a figure over what is left says too little about the whole.
    public static let maxLostFraction = 0.1

    /// `samples` on board time (none: a device without acceleration), where they came
    /// from (nil is taken as a model), the holes the sensor left in them (`losses`,
    /// oldest first), and the stamped drive.
    public init(samples: [AccelerationSample], origin: AccelerationOrigin?, losses holes: [AccelerationLoss], drive: [DriveStamp]) {
        var measurements: [BenchMeasurement] = []
        var unmeasured: [MeasurementError] = []
        func keep(_ body: () throws(MeasurementError) -> BenchMeasurement) {
            do { measurements.append(try body()) } catch { unmeasured.append(error) }
        }
        source = samples.isEmpty ? nil : (origin ?? .model)
        let lost = holes.reduce(0) { $0 + $1.count }
        let lostTooMany = !samples.isEmpty && Double(lost) > Self.maxLostFraction * Double(samples.count + lost)
        // A figure read where the sensor lost samples is not given as if the trace were
        // whole: listed as not measured, with how many of how many were lost there.
        func lossError(_ name: String, in span: ClosedRange<Double>?, whole: Bool = false) -> MeasurementError? {
            if whole {
                guard lostTooMany else { return nil }
                return .samplesLost(measurement: name, lost: lost, expected: samples.count + lost, span: "in the recording (more than \(Int(Self.maxLostFraction * 100)) %)")
            }
            guard let span else { return nil }
            let inside = holes.filter { $0.overlaps(span) }
            guard !inside.isEmpty else { return nil }
            let missing = inside.reduce(0) { $0 + $1.count }
            let there = samples.filter { span.contains(Double($0.boardMicroseconds)) }.count
            let ms = { (t: Double) in String(format: "%.1f", (t - span.lowerBound) / 1000) }
            return .samplesLost(
                measurement: name, lost: missing, expected: there + missing,
                span: "where it is read (\(ms(inside[0].firstMissingMicroseconds)) ms into the \(ms(span.upperBound)) ms from its drive stamp)")
        }
        if let e = lossError("peak acceleration", in: nil, whole: true) { unmeasured.append(e) } else {
            keep { () throws(MeasurementError) in try AccelerationLevels.peakG(samples) }
        }
        if let e = lossError("RMS acceleration", in: nil, whole: true) { unmeasured.append(e) } else {
            keep { () throws(MeasurementError) in try AccelerationLevels.rmsG(samples, holes: holes) }
        }
        let steps = DriveStep.steps(in: drive)
        driveSteps = steps.count
        if let step = steps.first {
            let recordingEnd = Double(samples.last?.boardMicroseconds ?? step.startMicroseconds)
            let driven = Double(step.startMicroseconds)...max(Double(step.startMicroseconds), Double(step.endMicroseconds ?? UInt64(recordingEnd)))
            let ringDown = step.endMicroseconds.map { Double($0)...max(Double($0), recordingEnd) }
            if let e = lossError("rise time 10→90 %", in: driven) { unmeasured.append(e) } else {
                keep { () throws(MeasurementError) in try ResponseTimes.riseTimeMilliseconds(samples, step: step) }
            }
            if let e = lossError("lag (drive stamp → motion onset)", in: driven) { unmeasured.append(e) } else {
                keep { () throws(MeasurementError) in try ResponseTimes.lagMilliseconds(samples, step: step) }
            }
            if let e = lossError("stop time (to 10 %)", in: ringDown) { unmeasured.append(e) } else {
                keep { () throws(MeasurementError) in try ResponseTimes.stopTimeMilliseconds(samples, step: step) }
            }
        } else {
            unmeasured.append(.noDriveStep(measurement: "rise time, lag and stop time"))
        }
        self.measurements = measurements
        self.unmeasured = unmeasured
    }
}
