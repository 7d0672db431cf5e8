import BridgeProtocol
import CHapbridgeProtocol
import DeviceInterface

/// The bench accelerometer on the board's bus (a LIS3DH: PROTOCOL.md, "Accelerometer"),
/// as the link's acceleration telemetry: the board streams its FIFO as ACCEL_SAMPLES
/// stamped in board time, and this keeps them on the same unwrapped board timeline the
/// stamped commands run on, along the axis the actuator moves.
///
/// What a link asks of the board when it opens (`BridgeLink.accelerometer`): the rate and
/// range, and which of the sensor's axes the actuator's lies along (Hardware/boards/
/// README.md, "Accelerometer": X along it, Z up).
public struct AccelerometerSettings: Sendable, Equatable {
    /// CTRL_REG1.ODR code: 9 = 1344 Hz, the fastest high-resolution rate (an LRA at
    /// 170 Hz gets ~8 samples a period).
    public var rateCode: UInt8
    /// CTRL_REG4.FS code: 1 = ±4 g, 2 mg a count (a sled's few g with room to spare).
    public var fullScaleCode: UInt8
    /// 0 X, 1 Y, 2 Z.
    public var axis: Int

    public init(rateCode: UInt8 = 9, fullScaleCode: UInt8 = 1, axis: Int = 0) {
        self.rateCode = rateCode
        self.fullScaleCode = fullScaleCode
        self.axis = axis
    }
}

/// The samples a link received. A class: the telemetry capability is a reference the
/// bench holds while the link fills it.
public final class LinkAccelerometer: AccelerationTelemetry {
    public let settings: AccelerometerSettings
    /// Frames that said samples were lost before them (the board's FIFO overran).
    public private(set) var lossReports = 0
    public private(set) var samples: [AccelerationSample] = []
    private var clock: BoardClock
    /// The most samples kept (about 150 s at 1344 Hz); older ones go first.
    public static let capacity = 200_000

    init(settings: AccelerationSettingsAnchor) {
        self.settings = settings.settings
        clock = BoardClock(anchor: settings.anchor)
    }

    public var accelerationSource: String { "LIS3DH" }
    public var accelerationOrigin: AccelerationOrigin { .sensor }

    public func acceleration(since boardMicroseconds: UInt64) -> [AccelerationSample] {
        guard let i = samples.firstIndex(where: { $0.boardMicroseconds >= boardMicroseconds }) else { return [] }
        return Array(samples[i...])
    }

    public func clearAcceleration() { samples.removeAll(keepingCapacity: true) }

    func take(_ frame: BoardFrame.AccelSamples) {
        if frame.lost { lossReports += 1 }
        let first = clock.unwrap(frame.firstBoardTime)
        let axis = min(max(settings.axis, 0), 2)
        for i in frame.raw.indices {
            let t = first + Int64(i) * Int64(frame.periodNanoseconds) / 1000
            guard t >= 0 else { continue }
            samples.append(AccelerationSample(boardMicroseconds: UInt64(t), g: frame.g(sample: i, axis: axis)))
        }
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
    }
}

/// The settings and the board-time anchor a session's stream starts from.
struct AccelerationSettingsAnchor {
    var settings: AccelerometerSettings
    var anchor: UInt32
}
