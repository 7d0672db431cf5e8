import Measurements

extension PlayMeasurements {
    /// The measurements of one play (`PlayResult.trace`): its samples, their origin and
    /// losses, and the drive it stamped, handed to Measurements' analysis as plain values.
    public init(trace: PlayTrace) {
        self.init(samples: trace.samples ?? [], origin: trace.origin, losses: trace.losses, drive: DriveStamp.from(trace.drive))
    }
}
