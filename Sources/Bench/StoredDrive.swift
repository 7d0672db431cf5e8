import Actuators
import DRV2605
import Devices
import FileAccess
import Foundation
import HapticCompilation
import Synchronization

/// The drive a play will use: the calibration `hapbridge calibrate` stored for this
/// board and actuator (an LRA then plays in closed loop), and a line saying what the
/// drive will be and why.
public struct StoredDrive: Sendable {
    public var calibration: AutoCalibrationResult?
    public var note: String

    /// Before the board stated its serial: no drive decided yet.
    public static let undecided = StoredDrive(note: "drive: decided when the engine starts (by the serial the board states)")

    /// Looks the calibration up in the user's store (`CalibrationStore.user()`) under the
    /// serial the board stated in HELLO_REPLY: the one lookup `play`, `measure`, HIL and
    /// `HapticEngine.open(address:)` share, on every transport. Never fails: whatever
    /// keeps the stored results from being used plays open loop, and the note says why.
    public static func lookUp(serial: String?, profile: ActuatorProfile) -> StoredDrive {
        guard profile.kind == .lra else { return StoredDrive(note: "drive: open loop (an ERM is driven open loop)") }
        guard let serial else { return StoredDrive(note: "drive: open loop (the board stated no serial to keep a calibration under)") }
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

extension StoredDrive {
    /// What an engine asks at start (`HapticEngine.Options.storedCalibration`): the
    /// calibration stored for the board that answered and `profile`, each decision kept
    /// in `decided` for the caller to report.
    public static func source(profile: ActuatorProfile, decided: Decided? = nil)
        -> @Sendable (_ boardSerial: String?) -> AutoCalibrationResult?
    {
        { serial in
            let drive = lookUp(serial: serial, profile: profile)
            decided?.value.withLock { $0 = drive }
            return drive.calibration
        }
    }

    /// The drive the engine's last start decided.
    public final class Decided: Sendable {
        let value = Mutex(StoredDrive.undecided)
        public init() {}
        public var drive: StoredDrive { value.withLock { $0 } }
    }
}
