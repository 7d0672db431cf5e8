import Actuators
import DRV2605
import Measurements

/// The LRA's resonance as the DRV2605 tracks it: LRA_PERIOD (0x22) counts the drive's
/// period in steps of 98.46 µs (datasheet), so f0 = 1 / (code × 98.46 µs), quantised
/// to one code (≈ 0.6 % at 175 Hz, code 58).
public enum Resonance {
    /// f0 from an LRA_PERIOD value (`DRV2605Formulas` holds the datasheet's step).
    public static func frequencyHz(lraPeriodCode code: UInt8) throws(MeasurementError) -> BenchMeasurement {
        guard let f = DRV2605Formulas.resonanceHz(lraPeriodCode: code) else { throw .noResonance(measurement: "resonance f0") }
        return BenchMeasurement(name: "resonance f0", unit: .hertz, value: f)
    }

    /// Brings the chip up for `profile`, drives the LRA at full scale in RTP for
    /// `driveMicroseconds` and reads LRA_PERIOD while it is still driven (the chip only
    /// updates it while it drives in phase), then stops. `calibrateFirst`: the closed
    /// loop locks onto the back-EMF against A_CAL_BEMF, which an auto-calibration sets.
    /// An open-loop profile drives at OL_LRA_PERIOD and the chip does not track: what
    /// LRA_PERIOD then holds is the calibration's reading (0 without one).
    public static func measure<D: HardwareDevice>(
        on device: D, profile: ActuatorProfile, calibrateFirst: Bool = true, driveMicroseconds: UInt64 = 100_000
    ) async throws(MeasurementError) -> BenchMeasurement {
        let name = "resonance f0"
        var driver = DRV2605Driver(bus: device.bus)
        let code: UInt8
        do {
            _ = try await driver.bringUp(profile: profile)
            if calibrateFirst {
                _ = try await driver.autoCalibrate()
                try await driver.wait(microseconds: 300_000)  // the calibration's buzz dies away
            }
            try await driver.startRealTimePlayback(unsigned: false)
            try await driver.setRealTimeAmplitude(signed: 127)
            try await driver.wait(microseconds: driveMicroseconds)
            code = try await driver.readRaw(.lraPeriod)
            try await driver.stopRealTimePlayback()
        } catch {
            throw .procedureFailed(measurement: name, reason: "\(error)")
        }
        return try frequencyHz(lraPeriodCode: code)
    }
}
