import Bench
import DeviceInterface

/// Point 4's measurements for one play (`PlayResult.trace`): peak and RMS acceleration
/// over the whole recording, and rise time, lag and stop time of the drive's first
/// step. What cannot be measured (no accelerometer, no drive step, a level never
/// reached) is kept as the error that says why, beside the figures that could.
public struct PlayMeasurements: Sendable {
    public var measurements: [BenchMeasurement]
    public var unmeasured: [MeasurementError]
    /// How many drive steps the play had (the timings are the first's).
    public var driveSteps: Int
    /// Where every acceleration figure here came from: "sensor" (a bench accelerometer)
    /// or "model" (the actuator's physics); nil without acceleration.
    public var source: AccelerationOrigin?

    public init(trace: PlayTrace) {
        var measurements: [BenchMeasurement] = []
        var unmeasured: [MeasurementError] = []
        func keep(_ body: () throws(MeasurementError) -> BenchMeasurement) {
            do { measurements.append(try body()) } catch { unmeasured.append(error) }
        }
        let samples = trace.samples ?? []
        source = samples.isEmpty ? nil : (trace.origin ?? .model)
        keep { () throws(MeasurementError) in try AccelerationLevels.peakG(samples) }
        keep { () throws(MeasurementError) in try AccelerationLevels.rmsG(samples) }
        let steps = DriveStep.steps(in: DriveStamp.from(trace.drive))
        driveSteps = steps.count
        if let step = steps.first {
            keep { () throws(MeasurementError) in try ResponseTimes.riseTimeMilliseconds(samples, step: step) }
            keep { () throws(MeasurementError) in try ResponseTimes.lagMilliseconds(samples, step: step) }
            keep { () throws(MeasurementError) in try ResponseTimes.stopTimeMilliseconds(samples, step: step) }
        } else {
            unmeasured.append(.noDriveStep(measurement: "rise time, lag and stop time"))
        }
        self.measurements = measurements
        self.unmeasured = unmeasured
    }
}
