import DRV2605
import DeviceInterface
import FTDIBridge

/// A bench session on a DRV2605 wired straight to an FT232H (no bridge board): the
/// driver's bus is the FT232H's MPSSE I2C (`FT232HI2CBus`). No accelerometer: the
/// procedures report the chip's own results (calibration codes, diagnostics), not a trace.
public final class FT232HBench: HardwareDevice {
    public let bus: FT232HI2CBus
    public let summary: String
    public let serial: String?

    /// Opens the FT232H (`serial` nil: the first one) and brings up its I2C with the
    /// DRV2605's EN high. `interruption` (a signal's reason, nil while none came) stops
    /// the procedure at its next bus access; `close` still stops the chip.
    public init(serial: String?, sclHz: Double = 400_000, interruption: (@Sendable () -> String?)? = nil) async throws(FT232HError) {
        bus = try FT232HI2CBus(serial: serial, sclHz: sclHz)
        await bus.setInterruption(interruption)
        self.serial = serial
        summary = "FT232H\(serial.map { " \($0)" } ?? "") (MPSSE I2C at \(Int(sclHz / 1000)) kHz, host-timed)"
    }

    public func acceleration() -> AccelerationTrace? { nil }
    public func clearAcceleration() {}

    /// The chip put in standby, EN low, the FT232H out of MPSSE mode and closed.
    public func close() async {
        // A failed write changes nothing: EN low follows anyway.
        await bus.setInterruption(nil)
        try? await DRV2605Driver(bus: bus).setStandby(true)
        await bus.close()
    }
}
