import Actuators
import BridgeLink
import BridgeProtocol
import DRV2605
import DeviceInterface
import HapticEngine
import SensorModel
import SimavrBridgeDevice
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

/// The bench accelerometer read by the firmware ELF under simavr: the harness
/// acknowledges the LIS3DH's address (`--accel 18`) and forwards its transactions to the
/// very `LIS3DHChip` the simulated board carries (`HarnessChip`), stepped on the same
/// simulated clock as the DRV2605 model and its physics. The same drive on both
/// backings gives the same figures.
@Suite(.serialized, .enabled(if: simavrRuns, "the firmware ELF and sim-harness are not built: \(SimavrBridgeDevice.buildHint)"))
struct AccelerometerOnFirmwareTests {
    enum Backing: String { case core, elf }

    struct Run {
        var hasCapability: Bool
        var samples: [DeviceInterface.AccelerationSample]
        var lossReports: Int
        /// Samples the link counted lost (holes in the stamps, whatever the cause).
        var lostSamples = 0
        /// The physics' acceleration on the board's clock.
        var model: [DeviceInterface.AccelerationSample]
        /// The FIFO reads at the sensor's address (ELF only: the harness logs the bus).
        var fifoReads: [SimavrI2CTransaction] = []
        var stack: (neverTouched: Int, dataBytes: Int)?
        /// Board time the stop's RTP_INPUT = 0 reached the chip: the peaks are the
        /// sustained drive's, before it. The stop's own transient is a single crest the
        /// samples may straddle, and how tall it is depends on where in the LRA's cycle
        /// the board takes the stop.
        var stopBoardMicroseconds: UInt64 = .max

        /// The sensor's readings less its zero-g level on the actuator's axis (X), which
        /// it reads on top of the motion (TyOff).
        var motion: [DeviceInterface.AccelerationSample] {
            samples.map { .init(boardMicroseconds: $0.boardMicroseconds, g: $0.g - LIS3DHChip.defaultZeroGOffsetG.x) }
        }
        var sensorPeak: Double { motion.filter { $0.boardMicroseconds < stopBoardMicroseconds }.map { abs($0.g) }.max() ?? 0 }
        var modelPeak: Double { model.filter { $0.boardMicroseconds < stopBoardMicroseconds }.map { abs($0.g) }.max() ?? 0 }
    }

    /// The LRA driven open loop at full RTP for 300 ms through register writes, then
    /// stopped, on a board with a LIS3DH fitted (as AccelerometerTelemetryTests does on
    /// the simulated board).
    func run(_ backing: Backing) async throws -> Run {
        let p = try profile()
        let mounting = LIS3DHChip.Mounting()
        var elf: SimavrBridgeDevice?
        var core: SimulatedBoard?
        let transport: any FrameTransport
        switch backing {
        case .core:
            var configuration = SimulatedBoard.Configuration(profile: p)
            configuration.accelerometer = mounting
            let board = SimulatedBoard(configuration: configuration)
            core = board
            transport = SimulatedBridgeDevice(board: board)
        case .elf:
            let device = try SimavrBridgeDevice(packageRoot: packageRoot, load: .actuator(Actuator(profile: p)), accelerometer: mounting)
            elf = device
            transport = device
        }
        let link = BridgeLink(transport: transport)
        let id = try await link.open()
        var driver = DRV2605Driver(bus: link.i2cBus)
        _ = try await driver.bringUp(profile: p)
        try await link.write(address: 0x5A, register: 0x01, bytes: [0x05])  // MODE: RTP, out of standby
        try await link.write(address: 0x5A, register: 0x02, bytes: [0x7F])  // RTP_INPUT full scale
        try await link.wait(microseconds: 300_000)
        try await link.stopAll()
        try await link.wait(microseconds: 50_000)
        let samples = link.sensor?.acceleration(since: 0) ?? []
        var result = Run(
            hasCapability: id.capabilities.contains(.accelerometer), samples: samples, lossReports: link.sensor?.lossReports ?? -1, model: [])
        result.lostSamples = link.sensor?.lostSamples ?? -1
        // RTP_INPUT (0x02) = 0 after the drive: the stop's first write.
        if let core {
            result.model = core.acceleration().map { DeviceInterface.AccelerationSample(boardMicroseconds: $0.time, g: $0.g) }
            let stop = core.i2cLog.last { $0.address == 0x5A && $0.kind == .write && $0.bytes == [0x02, 0x00] }
            result.stopBoardMicroseconds = stop.map { UInt64($0.boardTime) } ?? .max
        }
        if let elf {
            result.model = elf.acceleration(since: 0)
            let log = elf.takeI2CLog()
            let stop = log.last { $0.address == 0x5A && !$0.isRead && $0.bytes == [0x02, 0x00] }
            result.stopBoardMicroseconds = stop.map { UInt64($0.startBoardMicroseconds) } ?? .max
            result.fifoReads = log.filter { $0.address == LIS3DHChip.defaultAddress && $0.isRead && $0.register == 0xA8 }
            result.stack = try elf.stackMargin()
            elf.close()
        }
        return result
    }

    /// What both backings must show (AccelerometerTelemetryTests works out the
    /// tolerance: at 1344 Hz a 175 Hz LRA is sampled ~7.7 times a period at phases that
    /// walk round the cycle, so over 300 ms the largest sample is within 2 % of the
    /// crest; noise 5.7 mg rms, 2 mg a count).
    func check(_ r: Run, _ backing: Backing) {
        #expect(r.hasCapability, "\(backing): no accelerometer in HELLO_REPLY")
        #expect(r.samples.count > 400, "\(backing): \(r.samples.count) samples")  // 350 ms at 1344 Hz is 470
        #expect(r.lossReports == 0 && r.lostSamples == 0, "\(backing): \(r.lostSamples) samples lost, \(r.lossReports) frames said the FIFO overran")
        #expect(r.stopBoardMicroseconds > 300_000 && r.stopBoardMicroseconds < .max, "\(backing): no stop found in the I2C log")
        for (a, b) in zip(r.samples, r.samples.dropFirst()) {
            let step = Int64(b.boardMicroseconds) - Int64(a.boardMicroseconds)
            #expect(step >= 743 && step <= 745, "\(backing): stamps \(a.boardMicroseconds) → \(b.boardMicroseconds)")
        }
        #expect(r.modelPeak > 0.1, "\(backing): the sled barely moved (\(r.modelPeak) g)")
        #expect(
            abs(r.sensorPeak - r.modelPeak) <= 0.03 * r.modelPeak + 0.025,
            "\(backing): sensor peak \(r.sensorPeak) g, model \(r.modelPeak) g")
        // Each sample is the physics at its stamp plus the zero-g level, within the noise
        // and a step of the physics.
        var worst = 0.0
        for s in r.motion.prefix(300) {
            guard let m = r.model.last(where: { $0.boardMicroseconds <= s.boardMicroseconds }) else { continue }
            worst = max(worst, abs(m.g - s.g))
        }
        #expect(worst < 0.15 * r.modelPeak + 0.03, "\(backing): worst sample error \(worst) g")
        print("# \(backing): sensor peak \(r.sensorPeak) g, model \(r.modelPeak) g, \(r.samples.count) samples, worst sample error \(worst) g")
    }

    @Test("the ELF reads the LIS3DH on the bus: samples stamped a period apart that match the physics at their stamps, the peak within 3 % + 25 mg of the model's")
    func elfReadsTheSensor() async throws {
        let r = try await run(.elf)
        check(r, .elf)
    }

    /// A FIFO read of 6 samples is the address, the sub-address, the repeated START's
    /// address and 36 data bytes: 39 bytes of 9 bits, 351 SCL periods, 877.5 µs at the
    /// firmware's 400 kHz. The harness's bus runs at the SCL rate the firmware set
    /// (twi_bus.h), whichever device answers, so the read takes that long, plus what
    /// the firmware holds SCL between bytes.
    @Test("the ELF's FIFO reads hold the bus their real time: 6 samples × 6 bytes at 400 kHz take at least 877.5 µs, and the stack keeps its margin")
    func fifoReadsTakeTheirBusTime() async throws {
        let r = try await run(.elf)
        let full = r.fifoReads.filter { $0.bytes.count == 37 }
        #expect(!full.isEmpty, "no 36-byte FIFO read among \(r.fifoReads.count) reads at 0x18")
        for t in full {
            let took = t.stopBoardMicroseconds - t.startBoardMicroseconds
            #expect(took >= 877.5 && took < 1_100, "a 36-byte FIFO read took \(took) µs")
        }
        let durations = full.map { $0.stopBoardMicroseconds - $0.startBoardMicroseconds }
        print("# \(full.count) FIFO reads of 6 samples: \(durations.min() ?? 0)…\(durations.max() ?? 0) µs")
        // The firmware's RAM: the stack's deepest reach with the sensor streamed
        // (hbi_accel_poll's frame on the stack) still leaves the suite's margin.
        let stack = try #require(r.stack)
        #expect(stack.neverTouched >= 256, "only \(stack.neverTouched) bytes between .bss and the deepest stack")
        print("# RAM with the sensor streamed: \(stack.dataBytes) bytes data+bss, \(stack.neverTouched) bytes never touched by the stack")
    }

    @Test("the same drive on the firmware core and on the ELF: both read the sensor, and their peaks agree within 3 % + 25 mg")
    func coreAndELFAgree() async throws {
        let core = try await run(.core)
        let elf = try await run(.elf)
        check(core, .core)
        check(elf, .elf)
        #expect(
            abs(core.sensorPeak - elf.sensorPeak) <= 0.03 * core.modelPeak + 0.025,
            "sensor peak \(core.sensorPeak) g on the core, \(elf.sensorPeak) g on the ELF")
        print("# peaks: core sensor \(core.sensorPeak) g / model \(core.modelPeak) g; ELF sensor \(elf.sensorPeak) g / model \(elf.modelPeak) g")
    }
}

/// The engine's chip setup (a block of ~10 frames sharing one stamp, two bulk OUT
/// packets) on the firmware ELF while it streams its LIS3DH, in virtual time. The
/// firmware reads the sensor's FIFO in its main loop (up to 1,138 µs), between two
/// packets, sized to end before the commands already queued but not before those still
/// coming: a block whose second packet waited behind a read was taken in partly after
/// its stamp, and its commands taken in after the queue had run dry started late (the
/// first play after a replug in `run` under `emulate bridge --firmware elf
/// --accelerometer`: 1–8 underruns). Each wake from standby sends the block again at a
/// new phase of the sensor's reads (every ~4.5 ms); none may start late.
@Suite(.serialized, .enabled(if: simavrRuns, "the firmware ELF and sim-harness are not built: \(SimavrBridgeDevice.buildHint)"))
struct SetupBlockBesideTheSensorTests {
    @Test("every setup block is taken in before its stamp while the board reads its sensor: sixteen wakes at phases across a read period, no underrun")
    func setupBlocksRunOnTheirStampsBesideSensorReads() async throws {
        let p = try profile()
        let device = try SimavrBridgeDevice(packageRoot: packageRoot, load: .actuator(Actuator(profile: p)), accelerometer: LIS3DHChip.Mounting())
        #expect(device.accelerometer != nil)
        let idle: Int64 = 20_000
        let engine = HapticEngine(link: BridgeLink(transport: device), actuator: p, options: .init(driving: .manual, idleTimeoutMicroseconds: idle))
        await engine.setAutoShutdownEnabled(true)
        try await engine.start()
        var blocks = 1
        for i in 0..<16 {
            // Into standby, then a wake 371 µs further into the sensor's cycle than the last.
            try await engine.advance(bySeconds: Double(idle) / 1e6 + 0.01 + Double(i) * 371e-6)
            #expect(await engine.isInStandby)
            try await engine.start()
            blocks += 1
            try await engine.advance(bySeconds: 0.01)
        }
        let setups = Dictionary(grouping: await sentCommands(engine), by: { $0.stamp! }).values.filter { $0.count >= 5 }
        #expect(setups.count == blocks, "\(setups.count) setup blocks sent, \(blocks) expected")
        #expect(await engine.statistics.boardUnderruns == 0)
        await engine.stop()
    }
}
