import BridgeProtocol
import CHapbridgeProtocol
import DeviceInterface

/// The bench accelerometer on the board's bus (a LIS3DH: PROTOCOL.md, "Accelerometer"),
/// as the link's acceleration telemetry: the board streams its FIFO as ACCEL_SAMPLES
/// stamped in board time, and this keeps them on the same unwrapped board timeline the
/// stamped commands run on, along the axis the actuator moves.
///
/// What a link asks of the board when it opens (`BridgeLink.accelerometer`): the rate and
/// range, and which of the sensor's axes the actuator's motion lies along
/// (Hardware/boards/accelerometer.md, "Mounting": X along a sled's rails by default; a
/// coin LRA moves along Z).
public struct AccelerometerSettings: Sendable, Equatable {
    /// CTRL_REG1.ODR code: 9 = 1344 Hz, the fastest high-resolution rate (an LRA at
    /// 170 Hz gets ~8 samples a period).
    public var rateCode: UInt8
    /// CTRL_REG4.FS code: 1 = ±4 g, 2 mg a count (a sled's few g with room to spare).
    public var fullScaleCode: UInt8
    /// The axis the host reads (the sensor streams all three).
    public var axis: AccelerationAxis

    public init(rateCode: UInt8 = 9, fullScaleCode: UInt8 = 1, axis: AccelerationAxis = .x) {
        self.rateCode = rateCode
        self.fullScaleCode = fullScaleCode
        self.axis = axis
    }
}

/// The samples a link received, and the ones it can tell it did not. A class: the
/// telemetry capability is a reference the bench holds while the link fills it.
///
/// Every loss is counted, whatever caused it: the sensor samples on its own grid and
/// the board stamps each frame's first sample (within a period), so a frame whose first
/// stamp lies whole periods past where the last frame's samples ended shows a hole, and
/// its width in periods is how many samples fell in it. The board's flag
/// (the FIFO overran: at least one overwritten) and the link's count of the board's
/// frames that never arrived say why (`AccelerationLoss.Cause`).
public final class LinkAccelerometer: AccelerationTelemetry {
    public let settings: AccelerometerSettings
    /// Frames that said samples were lost before them (the board's FIFO overran).
    public private(set) var lossReports = 0
    public private(set) var samples: [AccelerationSample] = []
    /// The holes in `samples`' timeline, oldest first.
    public private(set) var losses: [AccelerationLoss] = []
    /// Samples lost since the session opened (kept across `clearAcceleration`).
    public private(set) var lostSamples = 0
    private var clock: BoardClock
    /// Where the next sample is due (board µs, unwrapped), after the last frame's.
    private var nextExpected: Double?
    /// The link's count of lost board frames when the last frame came.
    private var framesLostAtLastFrame = 0
    /// The most samples kept (about 150 s at 1344 Hz); older ones go first.
    public static let capacity = 200_000

    init(settings: AccelerationSettingsAnchor) {
        self.settings = settings.settings
        clock = BoardClock(anchor: settings.anchor)
    }

    public var accelerationSource: String { "LIS3DH" }
    public var accelerationOrigin: AccelerationOrigin { .sensor }
    public var accelerationAxis: AccelerationAxis? { settings.axis }

    public func acceleration(since boardMicroseconds: UInt64) -> [AccelerationSample] {
        guard let i = samples.firstIndex(where: { $0.boardMicroseconds >= boardMicroseconds }) else { return [] }
        return Array(samples[i...])
    }

    public func accelerationLosses(since boardMicroseconds: UInt64) -> [AccelerationLoss] {
        let from = Double(boardMicroseconds)
        return losses.compactMap { $0.endMicroseconds > from ? $0.clipped(to: from...Double.greatestFiniteMagnitude) : nil }
    }

    /// Forgets the samples and holes so far; the timeline goes on, so a hole right after
    /// is still seen.
    public func clearAcceleration() {
        samples.removeAll(keepingCapacity: true)
        losses.removeAll()
    }

    /// One ACCEL_SAMPLES frame; `boardFramesLost`: the link's count of the board's frames
    /// that never arrived, so far (`BridgeLink.Statistics`).
    func take(_ frame: BoardFrame.AccelSamples, boardFramesLost: Int = 0) {
        defer { framesLostAtLastFrame = boardFramesLost }
        let framesLostBefore = boardFramesLost - framesLostAtLastFrame
        if frame.lost { lossReports += 1 }
        let first = clock.unwrap(frame.firstBoardTime)
        let period = Double(frame.periodNanoseconds) / 1000
        if let expected = nextExpected, period > 0 {
            // Whole periods between where the samples should go on and where they do: the
            // stamps' own wander (the board moves its estimate only as far as the FIFO's
            // count bounds it, a fraction of a period a frame) rounds away.
            let missing = Int(((Double(first) - expected) / period).rounded())
            // OVRN_FIFO: at least one sample was overwritten, whatever the stamps say.
            let count = max(missing, frame.lost ? 1 : 0)
            if count > 0 {
                let cause: AccelerationLoss.Cause = frame.lost ? .fifoOverrun : framesLostBefore > 0 ? .framesLost : .unexplained
                losses.append(AccelerationLoss(firstMissingMicroseconds: expected, periodMicroseconds: period, count: count, cause: cause))
                lostSamples += count
            }
        }
        let axis = settings.axis.rawValue
        for i in frame.raw.indices {
            let t = first + Int64(i) * Int64(frame.periodNanoseconds) / 1000
            guard t >= 0 else { continue }
            samples.append(AccelerationSample(boardMicroseconds: UInt64(t), g: frame.g(sample: i, axis: axis)))
        }
        nextExpected = Double(first) + Double(frame.raw.count) * period
        if samples.count > Self.capacity {
            samples.removeFirst(samples.count - Self.capacity)
            let oldest = Double(samples.first?.boardMicroseconds ?? 0)
            losses.removeAll { $0.endMicroseconds <= oldest }
        }
    }
}

/// The settings and the board-time anchor a session's stream starts from.
struct AccelerationSettingsAnchor {
    var settings: AccelerometerSettings
    var anchor: UInt32
}
