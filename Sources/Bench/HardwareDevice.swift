import DeviceInterface

/// The device a bench procedure (calibration, diagnostics, a ROM effect) talks to: an
/// I2C bus for the driver and, where the device has one, a source of acceleration.
/// Every device the catalog opens — a bridge board, the simulated board, a hosted adapter
/// — is a `BridgeBench` over its link; the procedures are written against this protocol
/// so they need nothing else of it (the measuring runs here, `Resonance.measure`,
/// `CalibrationRuns` and `FrequencySweep`, use it the same way).
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
