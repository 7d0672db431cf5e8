import BridgeLink
import DeviceInterface
import Devices

/// A bench session on an opened device: the driver's bus is the board's I2C master
/// through protocol 1.1's register frames (the same on the simulated board and on a
/// bridge board over USB), acceleration comes from the device's telemetry if it has any.
public final class BridgeBench: HardwareDevice {
    public let session: BridgeLink
    public let identity: BoardIdentity
    public let summary: String
    public let bus: LinkI2CBus

    /// Opens a session (HELLO) on the device; a board that cannot do register access
    /// (protocol 1.0) is refused with what to do about it. `interruption` (a signal's
    /// reason, nil while none came) cuts any wait of the session short. On failure the
    /// device is closed.
    public init(_ opened: borrowing OpenedDevice, interruption: (@Sendable () -> String?)? = nil) async throws(BridgeLinkError) {
        session = opened.link()
        session.interruption = interruption
        let identity: BoardIdentity
        do { identity = try await session.open() } catch {
            opened.transport.close()
            throw error
        }
        guard identity.canAccessRegisters else {
            opened.transport.close()
            throw BridgeLinkError.firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion)
        }
        self.identity = identity
        summary = opened.summary
        bus = session.i2cBus
    }

    public func acceleration() -> AccelerationTrace? {
        guard let telemetry = session.telemetry else { return nil }
        let samples = ZeroGOffset.motion(in: telemetry.acceleration(since: 0), origin: telemetry.accelerationOrigin)
        guard !samples.isEmpty else { return nil }
        return AccelerationTrace(
            timeMilliseconds: samples.map { Double($0.boardMicroseconds) / 1000 }, accelerationG: samples.map(\.g),
            source: telemetry.accelerationSource, origin: telemetry.accelerationOrigin, axis: telemetry.accelerationAxis,
            losses: telemetry.accelerationLosses(since: 0))
    }

    public func clearAcceleration() { session.telemetry?.clearAcceleration() }

    /// Leaves the actuator stopped and the board's queue empty, whatever happened, and
    /// lets go of the device.
    public func close() async {
        try? await session.stopAll()
        session.close()
    }
}
