import Actuators
import DRV2605
import Devices
import FileAccess
import Foundation
import HapticCompilation

/// The drive a play will use: the calibration `hapbridge calibrate` stored for this
/// board and actuator (an LRA then plays in closed loop), and a line saying what the
/// drive will be and why.
public struct StoredDrive: Sendable {
    public var calibration: AutoCalibrationResult?
    public var note: String

    /// Looks the calibration up in the user's store (`CalibrationStore.user()`). Never
    /// fails: whatever keeps the stored results from being used plays open loop, and the
    /// note says why.
    public static func lookUp(serial: String?, profile: ActuatorProfile) -> StoredDrive {
        guard profile.kind == .lra else { return StoredDrive(note: "drive: open loop (an ERM is driven open loop)") }
        do {
            let store = try CalibrationStore.user()
            guard let record = try store.load(boardSerial: serial, profile: profile) else {
                return StoredDrive(note: "drive: open loop (no stored calibration for this board and actuator: run `hapbridge calibrate`)")
            }
            // Checked here as the engine will check it, so a mismatch plays open loop rather than not at all.
            do { _ = try DriveTarget(profile: profile, variant: record.chip, calibration: record.result) } catch {
                return StoredDrive(note: "drive: open loop (the stored calibration cannot be used: \(error))")
            }
            return StoredDrive(calibration: record.result, note: "drive: closed loop, calibrated \(ISO8601DateFormatter().string(from: record.measuredAt))")
        } catch {
            return StoredDrive(note: "drive: open loop (\(TerminalText.safe(error.description)))")
        }
    }
}
