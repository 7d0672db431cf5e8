import BridgeLink
import DeviceInterface
import Actuators
import BridgeProtocol
import Foundation
import HapticEngine
import Haptics
import SimavrBridgeDevice
import Testing

/// The package root, found from this file so the tests do not depend on the cwd.
let packageRoot = SimavrBridgeDevice.packageRoot(above: #filePath) ?? "."
/// HAPBRIDGE_REQUIRE_SIMAVR=1 (scripts/test) turns "not built, skipped" into a failure.
let simavrRequired = ProcessInfo.processInfo.environment["HAPBRIDGE_REQUIRE_SIMAVR"] == "1"
let simavrBuilt = SimavrBridgeDevice.locate(packageRoot: packageRoot) != nil
let simavrRuns = simavrBuilt || simavrRequired

func profile() throws -> ActuatorProfile {
    try ActuatorProfileLoader.resolve("pmd-c10-100", directories: [packageRoot + "/Hardware/actuators"])
}

/// An engine in manual driving on the firmware ELF under simavr.
func makeEngine() throws -> HapticEngine {
    let device = try SimavrBridgeDevice(packageRoot: packageRoot)
    return HapticEngine(link: BridgeLink(transport: device), actuator: try profile(), options: .init(driving: .manual))
}

func onDevice<T: Sendable>(_ engine: HapticEngine, _ body: @Sendable (SimavrBridgeDevice) -> T) async -> T {
    await engine.withDevice { body($0 as! SimavrBridgeDevice) }
}

/// Every stamped command the engine sent, in order.
func sentCommands(_ engine: HapticEngine) async -> [HostFrame] {
    await onDevice(engine) { d in
        d.takeSentTransfers().flatMap { (try? HostFrame.decodeAll($0.bytes)) ?? [] }.filter { $0.stamp != nil }
    }
}

func writes(_ engine: HapticEngine) async -> [SimavrI2CTransaction] {
    await onDevice(engine) { d in d.takeI2CLog().filter { !$0.isRead } }
}

/// Transients and continuous events on whole milliseconds (the control grid).
let mixedPattern = HapticPattern(events: [
    .transient(at: 0, intensity: 1, sharpness: 0.5),
    .continuous(at: 0.02, duration: 0.06, intensity: 0.8, sharpness: 0.3),
    .transient(at: 0.1, intensity: 0.6, sharpness: 1),
    .continuous(at: 0.13, duration: 0.04, intensity: 0.5, sharpness: 0.9),
])

/// Plays `pattern` from 50 ms ahead and returns the commands sent for it (stamped
/// from its start on: not the start-up burst, see `theStartUpBurst…`) and what hit
/// the bus.
func play(_ pattern: HapticPattern, for seconds: Double) async throws -> (HapticEngine, [HostFrame], [SimavrI2CTransaction]) {
    let engine = try makeEngine()
    try await engine.start()
    let player = try await engine.makePlayer(with: pattern)
    let begin = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
    try await player.start(atTime: begin)
    try await engine.advance(bySeconds: seconds)
    let first = UInt32(begin * 1e6)
    return (engine, await sentCommands(engine).filter { $0.stamp! >= first }, await writes(engine))
}

@Suite(.serialized, .enabled(if: simavrRuns, "the firmware ELF and sim-harness are not built: \(SimavrBridgeDevice.buildHint)"))
struct EngineOnFirmwareTests {
    @Test func theEngineStartsOnTheRealFirmwareAndClockSyncConverges() async throws {
        let engine = try makeEngine()
        try await engine.start()
        #expect(await engine.isRunning)
        #expect(await engine.capabilities.chip == .drv2605L)
        let now = await engine.currentTime
        let board = await onDevice(engine) { $0.boardMicroseconds(atSimulation: $0.simulationMicroseconds) }
        // The engine's estimate of the board clock is within one bulk IN poll of it.
        #expect(abs(now * 1e6 - board) < 200)
        await engine.stop()
    }

    @Test func eachStampsFirstI2CWriteStartsWithinAFewMicrosecondsOfIt() async throws {
        let (engine, sent, writes) = try await play(mixedPattern, for: 0.4)
        let stamps = Array(Set(sent.compactMap(\.stamp))).sorted()
        #expect(sent.filter { $0.type == .commandRTP }.count >= 8)
        var j = 0
        var errors: [Double] = []
        for s in stamps {
            while j < writes.count, writes[j].stopBoardMicroseconds < Double(s) - FirmwareBus.latchEarlyMicroseconds { j += 1 }
            guard j < writes.count else {
                Issue.record("no I2C write at or after stamp \(s)")
                break
            }
            errors.append(writes[j].stopBoardMicroseconds - Double(s))
        }
        #expect(errors.count == stamps.count)
        // A stamp is the STOP of the write (the chip latches there); cycle-accurate
        // under simavr the C harness measures it within ~1 µs.
        #expect(errors.allSatisfy { $0 >= -FirmwareBus.latchEarlyMicroseconds && $0 <= FirmwareBus.startAfterStampMicroseconds },
                "stamp → latch errors \(errors.filter { $0 > FirmwareBus.startAfterStampMicroseconds || $0 < -FirmwareBus.latchEarlyMicroseconds })")
        #expect(await engine.statistics.rejectedFrames == 0)
        await engine.stop()
    }

    @Test func everyRTPWriteStartsWithin10MicrosecondsOfItsStamp() async throws {
        let (engine, sent, writes) = try await play(mixedPattern, for: 0.4)
        let rtp = writes.filter { $0.register == 0x02 }
        var j = 0
        var late: [(stamp: UInt32, error: Double)] = []
        for f in sent where f.type == .commandRTP {
            let s = f.stamp!, a = f.rtpAmplitude!
            while j < rtp.count, rtp[j].value != a || rtp[j].stopBoardMicroseconds < Double(s) - FirmwareBus.latchEarlyMicroseconds { j += 1 }
            guard j < rtp.count else {
                Issue.record("no RTP_INPUT write of \(a) at or after stamp \(s)")
                break
            }
            let e = rtp[j].stopBoardMicroseconds - Double(s)
            if e > 10 { late.append((s, e)) }
            j += 1
        }
        // An OL_LRA_PERIOD write sharing the RTP's stamp is queued after it (the
        // compiler's rule 2), so the RTP never waits for it on the bus.
        #expect(late.isEmpty, "RTP writes late: \(late.prefix(5).map { "\($0.stamp): +\($0.error) µs" })")
        await engine.stop()
    }

    /// The firmware takes a batch in frame by frame (~95 µs each) and runs a command
    /// already due as soon as it is queued: `start()` stamps its ~10-frame chip setup
    /// far enough ahead (`frameIntakeMicroseconds` per frame) that the whole block is
    /// queued by its stamp and runs back to back, each write after the last.
    @Test func theStartUpBurstRunsOnItsStamp() async throws {
        let engine = try makeEngine()
        try await engine.start()
        try await engine.advance(bySeconds: 0.02)
        let sent = await sentCommands(engine)
        let log = await writes(engine)
        let stamp = try #require(sent.first?.stamp)
        let burst = sent.filter { $0.stamp == stamp }
        #expect(burst.count >= 5)
        // Its writes (the RTP from standby writes MODE first: one more) back to back from
        // the stamp: the last starts within one burst write per write before it. A frame
        // taken in between would add its intake (~95 µs) to a gap.
        let count = burst.count + 1
        let last = log.filter { $0.stopBoardMicroseconds >= Double(stamp) - FirmwareBus.latchEarlyMicroseconds }.prefix(count).last
        let span = (last?.stopBoardMicroseconds ?? .infinity) - Double(stamp)
        let underruns = await engine.statistics.boardUnderruns
        #expect(span <= Double(count - 1) * FirmwareBus.burstWriteMicroseconds + FirmwareBus.startAfterStampMicroseconds,
                "the burst's last write latched \(span) µs after its stamp")
        #expect(underruns == 0)
        await engine.stop()
    }

    @Test func stoppingDuringPlayLeavesTheActuatorStopped() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let player = try await engine.makePlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.5)]))
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 0.2)
        var log = await writes(engine)
        #expect(log.contains { $0.register == 0x02 && $0.value != 0 }, "the buzz never drove the chip")
        await engine.stop()
        try await engine.advance(bySeconds: 0.1)
        log += await writes(engine)
        // The board's stop: RTP_INPUT = 0, GO = 0, MODE = standby, and nothing after it.
        let tail = log.suffix(3).map { [$0.register ?? 0xFF, $0.value ?? 0xFF] }
        #expect(tail == [[0x02, 0x00], [0x0C, 0x00], [0x01, 0x40]])
        var registers = [UInt8](repeating: 0, count: 0x23)
        for w in log {
            for (i, v) in w.bytes.dropFirst().enumerated() where Int(w.bytes[0]) + i < registers.count {
                registers[Int(w.bytes[0]) + i] = v
            }
        }
        #expect(registers[0x02] == 0 && registers[0x0C] == 0 && registers[0x01] & 0x40 != 0)
    }

    @Test func enteringTheBootloaderAcksThenDetachesAndTheRebootedBoardReappears() async throws {
        let device = try SimavrBridgeDevice(packageRoot: packageRoot)
        var encoder = HostFrameEncoder()
        try device.send(encoder.enterBootloader())
        try device.run(untilSimulationMicroseconds: device.simulationMicroseconds + 300_000)
        let events = device.poll()
        let ackIndex = events.firstIndex {
            if case .frame(let b, _) = $0 { return (try? BoardFrame(decoding: b))?.ack?.type == .enterBootloader }
            return false
        }
        let gone = events.firstIndex(of: .disconnected)
        let back = events.firstIndex(of: .reappeared)
        #expect(ackIndex != nil, "the ACK was lost (events: \(events))")
        #expect(gone != nil && back != nil)
        if let a = ackIndex, let g = gone, let b = back { #expect(a < g && g < b) }
        #expect(device.resets == 1 && device.isAttached)
        // The rebooted firmware answers a new session.
        try device.send(encoder.hello())
        try device.run(untilSimulationMicroseconds: device.simulationMicroseconds + 5_000)
        #expect(device.poll().contains {
            if case .frame(let b, _) = $0 { return (try? BoardFrame(decoding: b))?.helloReply != nil }
            return false
        })
        device.close()
    }

    @Test func aFileThatIsNotTheFirmwareFailsWithTheHarnessReason() throws {
        let real = try #require(SimavrBridgeDevice.locate(packageRoot: packageRoot))
        let bogus = SimavrBridgeDevice.Artifacts(harness: real.harness, firmware: packageRoot + "/Package.swift")
        do {
            _ = try SimavrBridgeDevice(artifacts: bogus)
            Issue.record("a non-ELF file served")
        } catch {
            guard case .io = error else { Issue.record("not an I/O error: \(error)"); return }
            #expect(error.detail.contains("cannot load firmware"), "\(error)")
        }
    }

    @Test func aClosedDeviceRefusesFurtherUseWithATypedError() throws {
        let device = try SimavrBridgeDevice(packageRoot: packageRoot)
        device.close()
        device.close()  // idempotent
        var encoder = HostFrameEncoder()
        #expect(throws: DeviceError.self) { try device.send(encoder.hello()) }
        #expect(throws: DeviceError.self) { try device.run(untilSimulationMicroseconds: 1e9) }
    }
}

@Suite struct LocatingTheFirmwareTests {
    @Test func missingArtifactsAreATypedIOErrorNamingTheBuildCommand() {
        do {
            _ = try SimavrBridgeDevice(packageRoot: "/nonexistent/hapbridge")
            Issue.record("a device without its harness")
        } catch {
            guard case .io = error else { Issue.record("not an I/O error: \(error)"); return }
            #expect(error.detail.contains(SimavrBridgeDevice.buildHint))
        }
        #expect(SimavrBridgeDevice.locate(packageRoot: "/nonexistent/hapbridge") == nil)
    }

    @Test func thePackageRootIsFoundAboveThisFile() {
        let root = SimavrBridgeDevice.packageRoot(above: #filePath)
        #expect(root != nil)
        #expect(FileManager.default.fileExists(atPath: (root ?? "") + "/Firmware/Makefile"))
    }
}
