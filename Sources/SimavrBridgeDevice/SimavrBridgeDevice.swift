import Foundation
import DeviceInterface
import DRV2605Model
import Hex
import SensorModel

/// One I2C transaction at the harness's DRV2605 model.
public struct SimavrI2CTransaction: Sendable, Equatable {
    /// The firmware's own clock (board µs) at the START condition: what a stamp means.
    public var startBoardMicroseconds: Double
    /// Simulated µs at START (the host clock of this device).
    public var startSimulationMicroseconds: Double
    /// Board µs at the STOP condition.
    public var stopBoardMicroseconds: Double
    public var isRead: Bool
    /// 7-bit address.
    public var address: UInt8
    /// The register pointer written first, then the data written (or read).
    public var bytes: [UInt8]

    public var register: UInt8? { bytes.first }
    /// The first data byte: the value a single-register write stores.
    public var value: UInt8? { bytes.count > 1 ? bytes[1] : nil }
}

/// Bytes the host sent, with the simulated time they went out.
public struct SimavrTransfer: Sendable, Equatable {
    public var simulationMicroseconds: Double
    public var bytes: [UInt8]
}

/// The real firmware ELF (Firmware/build/hapbridge-32u4.elf) running under simavr,
/// cycle-accurate, as a `FrameTransport`: the engine streams to the very image a board
/// would be flashed with, through a modelled USB host (Firmware/sim, `sim-harness
/// --serve`, a child process) and, on the TWI pins, the behavioural DRV2605 model with
/// its actuator (`chip`, the one the simulated board's firmware core drives too:
/// `HarnessChip`), answering in simulated time.
///
/// **Virtual time.** The host clock is simulated µs: `wait(untilHostMicroseconds:)`
/// runs the simulation to that moment and returns, never sleeping. Board frames are
/// read from bulk IN every `pollMicroseconds` of simulated time, as a USB host polls,
/// and are stamped with the poll's time.
///
/// **What it records.** Every I2C transaction at the chip, with the firmware's clock
/// at START and STOP (`i2cTransactions`, `takeI2CLog()`); every transfer sent
/// (`takeSentTransfers()`). Long runs should take both now and then to bound memory.
///
/// **Acceleration.** The chip's actuator is this link's telemetry (`telemetry`), on
/// the firmware's clock, as on the simulated board.
///
/// **Link events.** The firmware detaching (bootloader entry) is `.disconnected`;
/// its reboot, after which the harness enumerates it again, is `.reappeared`.
///
/// The child never outlives the device: `close()`, also called on deinit, ends it.
public final class SimavrBridgeDevice: FrameTransport {
    public let artifacts: Artifacts
    public let pollMicroseconds: UInt32
    private let harness: HarnessProcess
    private var closed = false
    /// Simulated µs now (the harness's last word).
    public private(set) var simulationMicroseconds: Double
    /// Simulated µs at which the running firmware's clock read 0 (moves on a reboot).
    public private(set) var epochMicroseconds: Double
    /// False between a detach and the reboot's enumeration.
    public private(set) var isAttached = true
    /// Firmware reboots seen (bootloader entry, watchdog).
    public private(set) var resets = 0
    public private(set) var i2cTransactions: [SimavrI2CTransaction] = []
    public private(set) var sentTransfers: [SimavrTransfer] = []
    private var events: [DeviceEvent] = []
    private let harnessChip: HarnessChip
    /// The DRV2605 the firmware's I2C bus reaches, with the load on its outputs; its
    /// clock is simulated µs.
    public var chip: DRV2605Chip { harnessChip.chip }
    /// The LIS3DH on the bus, sampling the chip's actuator, when one is fitted.
    public var accelerometer: LIS3DHChip? { harnessChip.accelerometer }

    /// Starts `sim-harness --serve` on the ELF and waits until the firmware has
    /// booted and enumerated. `load` is what is wired to the chip's outputs;
    /// `accelerometer`, a LIS3DH mounted on its sled (at `accelerometerAddress`) that
    /// the firmware finds at boot, as on the simulated board.
    public init(
        artifacts: Artifacts, pollMicroseconds: UInt32 = 125, load: Load = .open, accelerometer: LIS3DHChip.Mounting? = nil,
        accelerometerAddress: UInt8 = LIS3DHChip.defaultAddress
    ) throws(DeviceError) {
        guard FileManager.default.isExecutableFile(atPath: artifacts.harness) else {
            throw .io("no sim-harness at \(artifacts.harness): \(Self.buildHint)")
        }
        guard FileManager.default.fileExists(atPath: artifacts.firmware) else {
            throw .io("no firmware ELF at \(artifacts.firmware): \(Self.buildHint)")
        }
        self.artifacts = artifacts
        self.pollMicroseconds = pollMicroseconds
        harnessChip = HarnessChip(
            load: load, recordsAcceleration: true, accelerometer: accelerometer, accelerometerAddress: accelerometerAddress)
        harness = try HarnessProcess(
            executable: artifacts.harness,
            arguments: ["--serve", artifacts.firmware, "--poll-us", String(pollMicroseconds)] + harnessChip.harnessArguments)
        simulationMicroseconds = 0
        epochMicroseconds = 0
        while true {
            let line = try harness.readLine()
            if line.hasPrefix("ready ") {
                let f = line.split(separator: " ")
                guard f.count == 3, let now = Double(f[1]), let epoch = Double(f[2]) else { throw .io("sim-harness: bad line '\(line)'") }
                simulationMicroseconds = now
                epochMicroseconds = epoch
                harnessChip.advance(toSimulationMicroseconds: now)
                break
            }
            if try answerChip(line) { continue }
            if line.hasPrefix("err ") {
                harness.note(String(line.dropFirst(4)))
                harness.close()
                throw harness.died("the firmware did not come up", exiting: true)
            }
            take(line)
        }
    }

    /// The ELF and harness built under `packageRoot` (see `packageRoot(above:)`).
    public convenience init(
        packageRoot: String, pollMicroseconds: UInt32 = 125, load: Load = .open, accelerometer: LIS3DHChip.Mounting? = nil
    ) throws(DeviceError) {
        guard let a = Self.locate(packageRoot: packageRoot) else {
            throw .io("the firmware ELF or sim-harness is not built under \(packageRoot)/Firmware/build: \(Self.buildHint)")
        }
        try self.init(artifacts: a, pollMicroseconds: pollMicroseconds, load: load, accelerometer: accelerometer)
    }

    deinit { harness.close() }

    public var summary: String {
        "firmware ELF under simavr (\((artifacts.firmware as NSString).lastPathComponent), sim-harness --serve, bulk IN polled every \(pollMicroseconds) µs, virtual time)"
    }

    public var hostMicroseconds: UInt64 { UInt64(max(0, simulationMicroseconds).rounded(.down)) }
    /// Simulated time: it moves only when `wait` runs the simulation.
    public var isRealTime: Bool { false }

    /// The firmware's clock at a simulated moment (µs, unwrapped).
    public func boardMicroseconds(atSimulation s: Double) -> Double { s - epochMicroseconds }

    public func send(_ bytes: [UInt8]) throws(DeviceError) {
        guard !closed else { throw .io("the simavr device is closed") }
        guard isAttached else { throw .disconnected }
        guard !bytes.isEmpty else { return }
        sentTransfers.append(SimavrTransfer(simulationMicroseconds: simulationMicroseconds, bytes: bytes))
        let reply = try command("send " + Hex.bytes(bytes, case: .lower))
        if reply == "err send: detached" {
            throw .disconnected
        }
    }

    public func poll() -> [DeviceEvent] {
        defer { events.removeAll() }
        return events
    }

    public func wait(untilHostMicroseconds t: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        try run(untilSimulationMicroseconds: Double(t))
    }

    /// Runs the simulation to `t` (no-op if already there), collecting what happens.
    public func run(untilSimulationMicroseconds t: Double) throws(DeviceError) {
        guard !closed else { throw .io("the simavr device is closed") }
        guard t > simulationMicroseconds else { return }
        _ = try command("run " + String(format: "%.4f", t))
    }

    /// The firmware's RAM as the harness painted it before boot: the bytes the stack
    /// has never reached above .bss since, and the bytes .data and .bss take.
    public func stackMargin() throws(DeviceError) -> (neverTouched: Int, dataBytes: Int) {
        let reply = try command("stack")
        let f = reply.split(separator: " ")
        guard f.count == 3, let free = Int(f[1]), let data = Int(f[2]) else { throw .io("sim-harness: bad line '\(reply)'") }
        return (free, data)
    }

    /// The I2C log so far, cleared.
    public func takeI2CLog() -> [SimavrI2CTransaction] {
        defer { i2cTransactions.removeAll(keepingCapacity: true) }
        return i2cTransactions
    }

    /// The transfers sent so far, cleared.
    public func takeSentTransfers() -> [SimavrTransfer] {
        defer { sentTransfers.removeAll(keepingCapacity: true) }
        return sentTransfers
    }

    /// Ends the harness. Further calls throw. Idempotent; deinit does it too.
    public func close() {
        closed = true
        harness.close()
    }

    // MARK: the line protocol (Firmware/sim/serve.c)

    /// Sends one command and handles lines up to its reply ("ok …", "done …" or
    /// "err …"); returns the reply. A fatal error ends the child: that throws.
    private func command(_ text: String) throws(DeviceError) -> String {
        try harness.writeLine(text)
        while true {
            let line = try harness.readLine()
            if line.hasPrefix("stack ") { return line }
            if line.hasPrefix("ok ") || line.hasPrefix("done ") {
                if let t = Double(line.split(separator: " ").last ?? "") { simulationMicroseconds = t }
                // The actuator moves on between transactions too (telemetry reads it).
                harnessChip.advance(toSimulationMicroseconds: simulationMicroseconds)
                return line
            }
            if try answerChip(line) { continue }
            if line == "err send: detached" {
                isAttached = false
                return line
            }
            if line.hasPrefix("err ") {
                harness.note(String(line.dropFirst(4)))
                if !harness.isRunning || line.hasPrefix("err simulated CPU stopped") {
                    throw harness.died("'\(text.prefix(40))' failed", exiting: true)
                }
                throw .io("sim-harness refused '\(text.prefix(40))': \(line.dropFirst(4))")
            }
            take(line)
        }
    }

    /// A transaction at the chip: true when the line was one (a read is answered at
    /// once: the harness waits for it).
    private func answerChip(_ line: String) throws(DeviceError) -> Bool {
        guard HarnessChip.isPeerLine(line), let reply = harnessChip.answer(line) else { return false }
        if !reply.isEmpty { try harness.writeLine(reply) }
        return true
    }

    /// An event line.
    private func take(_ line: String) {
        let f = line.split(separator: " ")
        guard let kind = f.first else { return }
        switch kind {
        case "frame" where f.count == 3:
            guard let at = Double(f[1]), let bytes = Hex.decode(f[2]) else { break }
            events.append(.frame(bytes, receivedAt: UInt64(max(0, at).rounded(.down))))
            return
        case "i2c" where f.count == 7:
            guard let start = Double(f[1]), let startSim = Double(f[2]), let stop = Double(f[3]),
                let address = Hex.value(f[5], as: UInt8.self), let bytes = Hex.decode(f[6])
            else { break }
            i2cTransactions.append(
                SimavrI2CTransaction(
                    startBoardMicroseconds: start, startSimulationMicroseconds: startSim, stopBoardMicroseconds: stop,
                    isRead: f[4] == "r", address: address, bytes: bytes))
            return
        case "detach":
            if isAttached { events.append(.disconnected) }
            isAttached = false
            return
        case "reset" where f.count == 3:
            guard let epoch = Double(f[2]) else { break }
            epochMicroseconds = epoch
            resets += 1
            if isAttached { events.append(.disconnected) }
            isAttached = true
            events.append(.reappeared)
            return
        default: break
        }
        harness.note(line)  // simavr's loader messages and the like
    }
}

extension SimavrBridgeDevice: AccelerationTelemetry {
    /// The actuator on the chip's outputs is this link's telemetry.
    public var telemetry: (any AccelerationTelemetry)? { self }
    public var accelerationSource: String { "simulated sled" }

    /// The sled's acceleration from the physics model, on the firmware's clock (samples
    /// from before the running firmware's boot are left out).
    public func acceleration(since boardMicroseconds: UInt64) -> [AccelerationSample] {
        let trace = chip.trace
        var out: [AccelerationSample] = []
        for (t, g) in zip(trace.timeMicroseconds, trace.accelerationG) {
            let board = Double(t) - epochMicroseconds
            guard board >= 0, UInt64(board) >= boardMicroseconds else { continue }
            out.append(AccelerationSample(boardMicroseconds: UInt64(board), g: g))
        }
        return out
    }

    public func clearAcceleration() { chip.clearTrace() }
}
