import Actuators
import DRV2605
import DeviceInterface
import Devices

/// The device a hardware command (`calibrate`, `diagnose`, `rom`) talks to: an I2C bus
/// for the driver and, where the device has one, a source of acceleration. Every board
/// reached through the device seam is a `BridgeBench`; the procedures are written
/// against this protocol so a device with its own I2C master (an FT232H) can conform too.
public protocol HardwareDevice: AnyObject {
    associatedtype Bus: I2CBus
    var bus: Bus { get }
    /// One line for the report, e.g. "simulated DRV2605L (chip model, virtual time)".
    var summary: String { get }
    /// Acceleration the device simulated or measured, if it can (nil: no accelerometer).
    func acceleration() -> AccelerationTrace?
    /// Forgets the acceleration recorded so far.
    func clearAcceleration()
}

/// Acceleration over time, as a command plots and summarises it.
public struct AccelerationTrace: Sendable, Equatable {
    public var timeMilliseconds: [Double]
    public var accelerationG: [Double]
    /// What measured or simulated it ("simulated sled").
    public var source: String = "simulated sled"

    public var peakG: Double { accelerationG.map(abs).max() ?? 0 }

    /// Last time |a| was above `fraction` of the peak: when the effect had died away.
    public func settledMilliseconds(fraction: Double = 0.1) -> Double? {
        let threshold = fraction * peakG
        guard threshold > 0, let i = accelerationG.lastIndex(where: { abs($0) > threshold }) else { return nil }
        return timeMilliseconds[i] - (timeMilliseconds.first ?? 0)
    }
}

/// A bench session on an opened device: the driver's bus is the board's I2C master
/// through protocol 1.1's register frames (the same on the simulated board and on a
/// bridge board over USB), acceleration comes from the device's telemetry if it has any.
final class BridgeBench: HardwareDevice {
    let session: BridgeSession
    let identity: BoardIdentity
    let summary: String
    let bus: BridgeI2CBus

    /// Opens a session (HELLO) on the device; a board that cannot do register access
    /// (protocol 1.0) is refused with what to do about it.
    /// A signal (`Interruption`) cuts any wait of the session short.
    init(_ opened: borrowing OpenedDevice) async throws {
        session = BridgeSession(transport: opened.transport)
        session.interruption = { Interruption.shared.reason }
        let identity: BoardIdentity
        do { identity = try await session.open() } catch {
            opened.transport.close()
            try Interruption.shared.exitIfInterrupted()
            throw CLIError(TerminalText.safe(error.description))
        }
        guard identity.canAccessRegisters else {
            opened.transport.close()
            throw CLIError(BridgeSessionError.firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion).description)
        }
        self.identity = identity
        summary = opened.summary
        bus = session.i2cBus
    }

    func acceleration() -> AccelerationTrace? {
        guard let telemetry = session.transport.telemetry else { return nil }
        let samples = telemetry.acceleration(since: 0)
        guard !samples.isEmpty else { return nil }
        return AccelerationTrace(
            timeMilliseconds: samples.map { Double($0.boardMicroseconds) / 1000 }, accelerationG: samples.map(\.g),
            source: telemetry.accelerationSource)
    }

    func clearAcceleration() { session.transport.telemetry?.clearAcceleration() }

    /// Leaves the actuator stopped and the board's queue empty, whatever happened, and
    /// lets go of the device.
    func close() async {
        try? await session.stopAll()
        session.transport.close()
    }
}
