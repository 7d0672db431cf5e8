import Actuators
import Bench
import DRV2605
import DeviceInterface
import Devices
import DRV2605Model
import Foundation
import HapticEngine
import Haptics
import Measurements
import SimulatedBridgeDevice
import Testing

/// The shipped profiles, found from this file so the tests do not depend on the
/// directory they run in.
func profile(_ name: String = "pmd-c10-100") throws -> ActuatorProfile {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try ActuatorProfileLoader.resolve(name, directories: [repository.appendingPathComponent("Hardware/actuators").path])
}

/// A bench session (the board's register frames) on a fresh simulated board with
/// `actuator` mounted.
func simulatedBench(_ actuator: ActuatorProfile?) async throws -> BridgeBench {
    try await BridgeBench(try DeviceCatalog().open(.simulated, simulated: SimulatedBoardSetup(actuator: actuator)))
}

/// What `hapbridge calibrate` would store for `actuator` on the simulated board (the
/// model is deterministic: every simulated board calibrates alike).
func simulatedCalibration(_ actuator: ActuatorProfile) async throws -> AutoCalibrationResult {
    let bench = try await simulatedBench(actuator)
    let report = await BenchProcedures.calibrate(on: bench, profile: actuator)
    await bench.close()
    return try #require(report.calibration, "calibration failed: \(report.text)")
}

/// What one play on the simulated board gave: the acceleration and the stamped drive.
struct Played {
    var samples: [AccelerationSample]
    var drive: [DriveStamp]
    /// The voltage the chip model put across the actuator, per physics step (board µs).
    var outputVolts: [(time: UInt64, volts: Double)]
    var steps: [DriveStep] { DriveStep.steps(in: drive) }
}

/// Plays `pattern` on a fresh simulated board in virtual time (the engine in manual
/// driving: time passes only as the test advances it; nothing sleeps), with the
/// engine's sent-command log on. `calibration` given: the LRA plays in closed loop, as
/// after `hapbridge calibrate`; nil: open loop. `tailSeconds` pass after the pattern's
/// end so the ring-down is recorded whole.
func play(
    _ pattern: HapticPattern, on actuator: ActuatorProfile, calibration: AutoCalibrationResult?, tailSeconds: Double = 0.2
) async throws -> Played {
    var options = HapticEngine.Options(driving: .manual)
    options.calibration = calibration
    options.keepsSentCommandLog = true
    let opened = try DeviceCatalog().open(.simulated, simulated: SimulatedBoardSetup(actuator: actuator))
    let engine = HapticEngine(link: opened.takeLink(), actuator: actuator, options: options)
    try await engine.start()
    let player = try await engine.makeAdvancedPlayer(with: pattern)
    try await player.start(atTime: 0)
    try await engine.advance(bySeconds: pattern.duration + tailSeconds)
    let drive = DriveStamp.from(await engine.sentCommands)
    let samples = await engine.acceleration(since: 0) ?? []
    let times = await engine.withDevice { ($0 as? SimulatedBridgeDevice)?.board.chip.trace.timeMicroseconds ?? [] }
    let volts = await engine.withDevice { ($0 as? SimulatedBridgeDevice)?.board.chip.trace.driveVolts ?? [] }
    await engine.close()
    return Played(samples: samples, drive: drive, outputVolts: Array(zip(times, volts)).map { (time: $0.0, volts: $0.1) })
}

/// A continuous buzz at full intensity: one drive step, long enough (0.3 s ≈ 15 τ of
/// the C10-100's envelope) for the envelope to settle before it ends.
func buzz(_ seconds: Double = 0.3) -> HapticPattern {
    HapticPattern(events: [.continuous(at: 0, duration: seconds, intensity: 1, sharpness: 0.5)])
}

/// The LRA model's envelope time constant, s: a resonator driven (or left) at
/// resonance through a voltage source has its amplitude approach (or leave) the steady
/// state as e^(−t/τ), τ = 2m / (c + Bl²/R) — the mechanical damping plus the coil's
/// electrical damping (`LRAPhysics`; the chip's output holds the coil at 0 V when it
/// does not drive, so the electrical damping is there in the ring-down too).
func envelopeTimeConstantSeconds(_ actuator: ActuatorProfile) -> Double {
    let lra = LRAPhysics(profile: actuator)
    return 2 * lra.movingMassKg / (lra.dampingNsPerM + lra.forceFactor * lra.forceFactor / lra.coilResistanceOhms)
}
