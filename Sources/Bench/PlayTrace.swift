import DeviceInterface

/// What a play recorded: the amplitudes the board was sent, and the acceleration where
/// the device has a source of it (board µs throughout).
public struct PlayTrace: Sendable {
    public var samples: [AccelerationSample]?
    /// What measured or simulated the acceleration ("simulated sled").
    public var source: String?
    /// Sensor or model: where the samples came from (nil without samples).
    public var origin: AccelerationOrigin?
    public var drive: [(time: UInt64, amplitude: Int8)]
    /// The sensor's axis the samples were read along (nil for a model).
    public var axis: AccelerationAxis?
    /// Samples the source took in the recording's span that never reached the host
    /// (`AccelerationLoss`), oldest first.
    public var losses: [AccelerationLoss]
    /// Board µs at which the play started (the host's start of the pattern; its first
    /// command is stamped at or after it): a golden trace's time zero. Nil where the
    /// trace was not made by a play.
    public var startMicroseconds: UInt64?
    /// The serial number the board stated in HELLO_REPLY (nil: none stated).
    public var boardSerial: String?

    public init(
        samples: [AccelerationSample]?, source: String?, drive: [(time: UInt64, amplitude: Int8)], origin: AccelerationOrigin? = nil,
        axis: AccelerationAxis? = nil, losses: [AccelerationLoss] = []
    ) {
        self.samples = samples
        self.source = source
        self.drive = drive
        self.origin = origin
        self.axis = axis
        self.losses = losses
    }

    public var peakG: Double { samples?.map { abs($0.g) }.max() ?? 0 }
}
