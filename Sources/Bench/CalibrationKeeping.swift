import Actuators
import BridgeLink
import DRV2605
import Devices
import FileAccess

/// Keeping an auto-calibration for `play`: per board serial and actuator, under the
/// user's XDG config directory (`CalibrationStore`). What `hapbridge calibrate` and a
/// HIL script do after a passing run; either the file it went to or why it did not,
/// so a caller can fail when results were not kept.
public enum CalibrationKeeping {
    public struct Kept: Sendable, Equatable {
        /// The file the record went to.
        public var file: String
        /// What the store said about itself (a directory it made, one it could not read).
        public var warnings: [String]
    }

    /// Why the results were not kept, in one line, and what the store said about itself.
    public struct NotKept: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public var warnings: [String] = []
    }

    /// Keeps `result` under the serial `board` stated in HELLO_REPLY: the one identity
    /// every transport gives (a bridge board's, the simulated board's, a hosted adapter's
    /// own through its hosted core), which `StoredDrive.lookUp` finds it by.
    public static func keep(_ result: AutoCalibrationResult, board: BoardIdentity, profile: ActuatorProfile, supplyVolts: Double?)
        -> Result<Kept, NotKept>
    {
        guard let chip = board.chip else { return .failure(NotKept(description: "calibration results not stored: the board reported no known chip")) }
        guard let serial = board.serialNumber else {
            return .failure(NotKept(description: "calibration results not stored: \(CalibrationStoreError.noSerial)"))
        }
        let firmwareVersion = board.firmwareVersion
        let store: CalibrationStore
        do { store = try CalibrationStore.user() } catch { return .failure(NotKept(description: "calibration results not stored: \(error)")) }
        do throws(CalibrationStoreError) {
            let record = CalibrationRecord(
                result: result, boardSerial: serial, profile: profile, chip: chip, firmwareVersion: firmwareVersion,
                supplyVolts: supplyVolts)
            return .success(Kept(file: try store.save(record), warnings: store.warnings))
        } catch .unwritable(let file, let reason) {
            return .failure(NotKept(description: "calibration results not stored in \(TerminalText.echo(file, limit: 300)): \(reason)", warnings: store.warnings))
        } catch {
            return .failure(NotKept(description: "calibration results not stored: \(error)", warnings: store.warnings))
        }
    }
}
