import Actuators
import BridgeLink
import DRV2605Model
import DeviceInterface
import HapticEngine
import Haptics
import SimavrBridgeDevice
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

/// The firmware ELF's I2C bus reaches the same DRV2605 model, with the same actuator
/// physics, as the firmware core on the simulated board (`HarnessChip`): what the
/// engine plays moves the sled alike on both.
@Suite(.serialized, .enabled(if: simavrRuns, "the firmware ELF and sim-harness are not built: \(SimavrBridgeDevice.buildHint)"))
struct OneChipModelOnFirmwareTests {
    enum Backing { case core, elf }

    /// A 100 ms buzz at full intensity from 50 ms ahead: the acceleration (g) from its start.
    func buzz(on backing: Backing) async throws -> [Double] {
        let p = try profile()
        let transport: any FrameTransport =
            switch backing {
            case .core: SimulatedBridgeDevice(board: SimulatedBoard(profile: p))
            case .elf: try SimavrBridgeDevice(packageRoot: packageRoot, load: .actuator(Actuator(profile: p)))
            }
        let engine = HapticEngine(link: BridgeLink(transport: transport), actuator: p, options: .init(driving: .manual))
        try await engine.start()
        let player = try await engine.makePlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 0.1, intensity: 1, sharpness: 0.5)]))
        let begin = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        try await player.start(atTime: begin)
        try await engine.advance(bySeconds: 0.25)
        let samples = await engine.acceleration(since: UInt64(begin * 1e6)) ?? []
        await engine.stop()
        return samples.map(\.g)
    }

    @Test("a buzz on the ELF accelerates the sled as on the simulated board: the same peak within 0.5 %")
    func accelerationOnTheELFMatchesTheCoreBacking() async throws {
        let elf = try await buzz(on: .elf)
        let core = try await buzz(on: .core)
        let elfPeak = elf.map { abs($0) }.max() ?? 0
        let corePeak = core.map { abs($0) }.max() ?? 0
        #expect(corePeak > 0.5, "the simulated board's sled barely moved: \(corePeak) g")
        // The same drive on the same model. The ELF's writes reach the chip where their
        // I2C transactions end (~80 µs after the stamp at 400 kHz), the core's on the
        // stamp: at most one 100 µs physics step apart, which moves the peak of a
        // 175 Hz LRA's envelope by a small fraction of a percent (measured: 0.02 %).
        #expect(abs(elfPeak - corePeak) <= 0.005 * corePeak, "peak \(elfPeak) g on the ELF, \(corePeak) g on the core")
    }
}

/// The Swift end of `--chip host` on its own (no simavr needed): the harness's lines
/// reach the behavioural chip at their simulated moments.
@Suite struct HarnessChipTests {
    @Test("the harness's chip lines reach the behavioural DRV2605: reset values read back, writes land, diagnostics clear GO in simulated time")
    func harnessLinesDriveTheBehaviouralChip() throws {
        let c = HarnessChip(load: .actuator(Actuator(profile: try profile())), recordsAcceleration: false)
        // CONTROL1's reset value, not a register file's 00.
        #expect(c.answer("chip r 10.0000 1b") == "chip 93")
        // Out of standby into diagnostics, then GO: writes take no answer.
        #expect(c.answer("chip w 20.0625 0106") == "")
        #expect(c.answer("chip w 30.5000 0c01") == "")
        #expect(c.answer("chip r 1000.0000 0c") == "chip 01", "still diagnosing 1 ms on")
        #expect(c.answer("chip r 200000.0000 0c") == "chip 00", "GO cleared once the diagnostic run is over")
        // STATUS: DEVICE_ID 7, DIAG_RESULT 0 (the actuator is there).
        #expect(c.answer("chip r 200010.0000 00") == "chip e0")
        #expect(c.chip.nowMicroseconds == 200_010)
        // Anything else is not the chip's.
        #expect(c.answer("chip r soon 0c") == nil && c.answer("chip x 1.0 0c") == nil && c.answer("frame 1.0 00") == nil)
    }
}
