@testable import BridgeProtocol
import DeviceInterface
import SensorModel
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

@testable import BridgeLink

/// Every sample the sensor took and the host did not get is counted, whatever lost it:
/// a hole in the stamps is as many periods wide as samples are missing (the board stamps
/// each frame's first sample on the sensor's grid), and the board's flag and the link's
/// sequence gaps say why.
@Suite("Sensor samples lost: counted from the stamps, with the cause")
struct SampleLossTests {
    static let periodNanoseconds: UInt32 = 744_048

    /// An ACCEL_SAMPLES frame as the board sends it: `count` samples from board time
    /// `first` on, X counting from `x`.
    static func frame(first: UInt32, count: Int = 6, x: Int16 = 0, lost: Bool = false) -> BoardFrame.AccelSamples {
        BoardFrame.AccelSamples(
            firstBoardTime: first, periodNanoseconds: periodNanoseconds, fullScaleCode: 1, resolution: 0, lost: lost,
            raw: (0..<count).map { [(x + Int16($0)) << 4, 0, 0] })
    }

    static func sensor() -> LinkAccelerometer {
        LinkAccelerometer(settings: AccelerationSettingsAnchor(settings: AccelerometerSettings(), anchor: 0))
    }

    /// Where frame `k` of a stream of 6-sample frames starts, µs (the board's stamps,
    /// rounded down from the period's nanoseconds as the firmware's are).
    static func start(ofSample i: Int) -> UInt32 { UInt32(UInt64(i) * UInt64(periodNanoseconds) / 1000) }

    @Test("frames a period apart: no loss; a stamp jitter under half a period is no loss either")
    func continuousFramesLoseNothing() {
        let s = Self.sensor()
        for k in 0..<10 { s.take(Self.frame(first: Self.start(ofSample: 6 * k) + (k == 5 ? 300 : 0))) }
        #expect(s.lostSamples == 0 && s.losses.isEmpty)
        #expect(s.samples.count == 60)
    }

    @Test("a frame the link never got: its six samples counted lost where they belonged, cause frames-lost")
    func framesLostOnTheLink() {
        let s = Self.sensor()
        s.take(Self.frame(first: Self.start(ofSample: 0)))
        s.take(Self.frame(first: Self.start(ofSample: 12)), boardFramesLost: 1)  // frame 6...11 never came
        #expect(s.lostSamples == 6)
        let loss = s.losses.first
        #expect(loss?.count == 6 && loss?.cause == .framesLost)
        #expect(abs((loss?.firstMissingMicroseconds ?? 0) - Double(Self.start(ofSample: 6))) < 1)
    }

    @Test("the board's flag (a full FIFO replaced some) counts at least one, and the hole's width the rest: cause fifo-overrun")
    func flaggedLoss() {
        let s = Self.sensor()
        s.take(Self.frame(first: Self.start(ofSample: 0)))
        s.take(Self.frame(first: Self.start(ofSample: 6), lost: true))  // flagged, stamps say none: one at least
        s.take(Self.frame(first: Self.start(ofSample: 12 + 9), lost: true))  // 9 replaced
        #expect(s.losses.map(\.count) == [1, 9])
        #expect(s.losses.allSatisfy { $0.cause == .fifoOverrun })
        #expect(s.lostSamples == 10 && s.lossReports == 2)
    }

    @Test("a hole is still seen right after clearAcceleration, and a window owns only the part of a hole inside it")
    func holesAcrossClearsAndWindows() {
        let s = Self.sensor()
        s.take(Self.frame(first: Self.start(ofSample: 0)))
        s.clearAcceleration()
        s.take(Self.frame(first: Self.start(ofSample: 6 + 10)), boardFramesLost: 2)
        #expect(s.losses.count == 1 && s.losses[0].count == 10)
        // From sample 11 on: 5 of the 10 missing (samples 11...15) lie in the window.
        let since = UInt64(Self.start(ofSample: 11))
        #expect(s.accelerationLosses(since: since).map(\.count) == [5])
        #expect(s.accelerationLosses(since: UInt64(Self.start(ofSample: 16))).isEmpty)
    }

    /// End to end on the simulated board: the firmware core reads its LIS3DH model, and a
    /// port with no room (a host that stopped reading bulk IN) holds the frames back; the
    /// FIFO keeps 32 and replaces the rest. The link counts exactly the samples the
    /// sensor replaced.
    @Test("a port with no room for 40 ms: the link counts exactly the samples the full FIFO replaced, as one hole, and none after")
    func portWithoutRoomLosesWhatTheFIFOReplaced() async throws {
        var configuration = SimulatedBoard.Configuration(profile: try profile())
        configuration.accelerometer = LIS3DHChip.Mounting()
        let board = SimulatedBoard(configuration: configuration)
        let link = BridgeLink(transport: SimulatedBridgeDevice(board: board))
        _ = try await link.open()
        try await link.wait(microseconds: 20_000)
        board.transmitRoom = { 0 }
        try await link.wait(microseconds: 40_000)
        board.transmitRoom = nil
        // In steps: a virtual-time link takes the board's frames at the end of each
        // pass, and hands them over a link latency later.
        for _ in 0..<20 { try await link.wait(microseconds: 1_000) }
        let sensor = try #require(link.sensor)
        let replaced = try #require(board.accelerometer?.replacedSamples)
        #expect(replaced > 20)  // 40 ms is 53 samples; the FIFO kept 32
        #expect(sensor.lostSamples == replaced, "the link counted \(sensor.lostSamples), the sensor replaced \(replaced)")
        #expect(sensor.losses.count == 1 && sensor.losses.first?.cause == .fifoOverrun)
        // Around the hole the stamps stay on the sensor's grid.
        for (a, b) in zip(sensor.samples, sensor.samples.dropFirst()) {
            let periods = (Double(b.boardMicroseconds) - Double(a.boardMicroseconds)) * 1000 / Double(Self.periodNanoseconds)
            #expect(abs(periods - periods.rounded()) < 0.01)
        }
    }
}
