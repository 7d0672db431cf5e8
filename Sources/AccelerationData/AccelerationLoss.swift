/// Samples a sensor took that never reached the host: a hole in its timeline. A sensor
/// samples on its own fixed grid (a LIS3DH at its output data rate), so the samples
/// either side of a hole say how many are missing; a model computes every step and
/// loses none.
public struct AccelerationLoss: Sendable, Equatable {
    /// Why the samples are missing, as far as the host can tell.
    public enum Cause: String, Sendable, Equatable, CaseIterable {
        /// The sensor's FIFO overran before the board read it: the board says so in the
        /// next frame (ACCEL_SAMPLES format bit 7, PROTOCOL.md "Accelerometer").
        case fifoOverrun = "fifo-overrun"
        /// Frames the board numbered never arrived (a gap in its sequence numbers): its
        /// USB ring had no room, or the link lost them.
        case framesLost = "frames-lost"
        /// The stamps jump with neither of those: the host cannot say why.
        case unexplained
        /// The recording was to run to a board time its samples never reached: the
        /// device fell behind the host's clock (an emulation on a loaded host), or its
        /// last frames were lost.
        case neverArrived = "never-arrived"

        /// "the sensor's FIFO overran": for reports.
        public var text: String {
            switch self {
            case .fifoOverrun: "the sensor's FIFO overran before the board read it"
            case .framesLost: "the board's frames were lost on the way to the host"
            case .unexplained: "a jump in the sample stamps"
            case .neverArrived: "the samples up to the recording's end never arrived (the device fell behind the host's clock)"
            }
        }
    }

    /// Board time of the first missing sample, µs (the board's estimate: within one
    /// period, as every sample stamp is).
    public var firstMissingMicroseconds: Double
    /// The sensor's sample period, µs.
    public var periodMicroseconds: Double
    /// How many samples are missing, from the first on, a period apart.
    public var count: Int
    public var cause: Cause

    public init(firstMissingMicroseconds: Double, periodMicroseconds: Double, count: Int, cause: Cause) {
        self.firstMissingMicroseconds = firstMissingMicroseconds
        self.periodMicroseconds = periodMicroseconds
        self.count = count
        self.cause = cause
    }

    /// Board time just past the last missing sample, µs.
    public var endMicroseconds: Double { firstMissingMicroseconds + Double(count) * periodMicroseconds }

    /// How many of the missing samples would have fallen in `window` (board µs): a
    /// recording cut from a longer one owns only the part of a hole inside it.
    public func missing(in window: ClosedRange<Double>) -> Int {
        guard count > 0, periodMicroseconds > 0 else { return 0 }
        let first = max(0, ((window.lowerBound - firstMissingMicroseconds) / periodMicroseconds).rounded(.up))
        let last = min(Double(count - 1), ((window.upperBound - firstMissingMicroseconds) / periodMicroseconds).rounded(.down))
        return last >= first ? Int(last - first) + 1 : 0
    }

    /// Whether the hole lies (by more than half a period, the stamps' own wander) within
    /// `span`, board µs: a step from one sample to the next across it, a figure's window.
    public func overlaps(_ span: ClosedRange<Double>) -> Bool {
        count > 0 && firstMissingMicroseconds < span.upperBound - periodMicroseconds / 2 && endMicroseconds > span.lowerBound + periodMicroseconds / 2
    }

    /// The part of this hole inside `window`, nil when none of it is.
    public func clipped(to window: ClosedRange<Double>) -> AccelerationLoss? {
        let n = missing(in: window)
        guard n > 0 else { return nil }
        let skipped = max(0, ((window.lowerBound - firstMissingMicroseconds) / periodMicroseconds).rounded(.up))
        return AccelerationLoss(
            firstMissingMicroseconds: firstMissingMicroseconds + skipped * periodMicroseconds, periodMicroseconds: periodMicroseconds, count: n,
            cause: cause)
    }
}

/// Which of a three-axis sensor's axes a recording read: the one the actuator moves
/// along. A coin LRA moves along its face's normal (Z with the sensor flat on it), a
/// sled on rails along X (Hardware/boards/accelerometer.md, "Mounting").
public enum AccelerationAxis: Int, Sendable, Equatable, CaseIterable {
    case x = 0, y = 1, z = 2

    /// "x", "y", "z": as the command line and the bench file spell it.
    public var name: String {
        switch self {
        case .x: "x"
        case .y: "y"
        case .z: "z"
        }
    }

    /// The axis a name spells (any case), nil for anything else.
    public init?(name: String) {
        guard let axis = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = axis
    }

    /// "X": as reports print it.
    public var label: String { name.uppercased() }
}
