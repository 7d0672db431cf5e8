import Actuators
import BridgeLink
import BridgeProtocol
import DRV2605
import DeviceInterface
import SensorModel
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

/// The bench accelerometer end to end on the simulated board: the firmware core finds
/// the LIS3DH model on the bus, the link starts its stream with the session, and the
/// samples (stamped in board time by the firmware) become the link's telemetry.
@Suite("Accelerometer telemetry over the link")
struct AccelerometerTelemetryTests {
    func board(sensor: Bool) throws -> SimulatedBoard {
        var configuration = SimulatedBoard.Configuration(profile: try profile())
        configuration.accelerometer = sensor ? LIS3DHChip.Mounting() : nil
        return SimulatedBoard(configuration: configuration)
    }

    /// Drives the LRA open loop at full RTP for 300 ms through register writes, then stops it.
    func drive(_ link: BridgeLink) async throws {
        var driver = DRV2605Driver(bus: link.i2cBus)
        _ = try await driver.bringUp(profile: try profile())
        try await link.write(address: 0x5A, register: 0x01, bytes: [0x05])  // MODE: RTP, out of standby
        try await link.write(address: 0x5A, register: 0x02, bytes: [0x7F])  // RTP_INPUT full scale
        try await link.wait(microseconds: 300_000)
        try await link.stopAll()
        try await link.wait(microseconds: 50_000)
    }

    @Test("a board without the sensor: capability clear, telemetry is the model's")
    func withoutSensor() async throws {
        let link = BridgeLink(transport: SimulatedBridgeDevice(board: try board(sensor: false)))
        let id = try await link.open()
        #expect(!id.capabilities.contains(.accelerometer))
        #expect(link.sensor == nil)
        #expect(link.telemetry?.accelerationOrigin == .model)
    }

    /// The sensor reads the physics: at 1344 Hz an LRA near 175 Hz is sampled ~7.7 times a
    /// period at phases that walk round the cycle, so over 300 ms the largest sample comes
    /// within cos(π·175/1344/… ) of the crest, well under 2 %; noise adds 5.7 mg rms
    /// (220 µg/√Hz over 672 Hz) and ±4 g counts 2 mg. The sensor's peak must match the
    /// model's within 3 % + 25 mg.
    @Test("with a LIS3DH fitted the link streams it: samples in board time, the sensor's peak is the physics' peak")
    func sensorPeakMatchesThePhysics() async throws {
        let simulated = try board(sensor: true)
        let link = BridgeLink(transport: SimulatedBridgeDevice(board: simulated))
        let id = try await link.open()
        #expect(id.capabilities.contains(.accelerometer))
        try await drive(link)
        let sensor = try #require(link.sensor)
        #expect(link.telemetry?.accelerationOrigin == .sensor && link.telemetry?.accelerationSource == "LIS3DH")
        // What the sensor read, less its zero-g level on the actuator's axis (TyOff).
        let samples = sensor.acceleration(since: 0).map { AccelerationSample(boardMicroseconds: $0.boardMicroseconds, g: $0.g - LIS3DHChip.defaultZeroGOffsetG.x) }
        #expect(samples.count > 400)  // 350 ms at 1344 Hz is 470
        #expect(sensor.lossReports == 0)
        // Stamps a period apart (744.048 µs), in order.
        for (a, b) in zip(samples, samples.dropFirst()) {
            let step = Int64(b.boardMicroseconds) - Int64(a.boardMicroseconds)
            #expect(step >= 743 && step <= 745)
        }
        let sensorPeak = samples.map { abs($0.g) }.max() ?? 0
        let modelPeak = simulated.peakAcceleration()
        #expect(modelPeak > 0.1)  // the C10-100 open loop at full RTP on the sim: ~0.18 g
        #expect(abs(sensorPeak - modelPeak) <= 0.03 * modelPeak + 0.025, "sensor \(sensorPeak) g, model \(modelPeak) g")
        print("# peak: sensor \(sensorPeak) g, model \(modelPeak) g, \(samples.count) samples")
        // Each sample is the physics at its stamp (within the noise and a step of the physics).
        let model = simulated.acceleration()
        var worst = 0.0
        for s in samples.prefix(200) {
            guard let m = model.last(where: { $0.time <= s.boardMicroseconds }) else { continue }
            worst = max(worst, abs(m.g - s.g))
        }
        #expect(worst < 0.15 * modelPeak + 0.03, "worst sample error \(worst) g")
    }
}
