import Actuators
import DRV2605
import SimulatedBoard

/// A device the host can drive. Today there is one kind: the simulated board. The
/// transports to come (a bridge board over libusb, an FT232H over libftdi) add their
/// cases here, so callers that switch over it are told by the compiler what is new.
public enum SelectedDevice {
    /// The firmware core on the chip model, in process, in virtual time.
    case simulated(SimulatedBoard)

    /// One line for a report.
    public var summary: String {
        switch self {
        case .simulated(let board):
            let load: String
            switch board.configuration.load {
            case .actuator(let a): load = "\(a.kind == .lra ? "LRA" : "ERM") actuator"
            case .open: load = "no actuator"
            case .shorted: load = "shorted outputs"
            }
            return "simulated bridge board (firmware core + \(board.chip.variant) model + \(load), virtual time)"
        }
    }
}

/// Picks the device to use. The seam later transports extend: each will contribute
/// the hardware it actually finds (USB enumeration, FTDI probing), and only when none
/// is present does selection fall back to the simulated board. No transport is built
/// in yet, so there is nothing to look for and the simulated board is always chosen;
/// this type does not pretend to search.
public enum DeviceSelection {
    /// The actuator on the default simulated board: the best-documented LRA profile
    /// in `Hardware/actuators` (Precision Microdrives C10-100, 175 Hz).
    public static let defaultActuatorProfile = "pmd-c10-100"

    /// The device to use when the user names none: hardware if any were found (no
    /// transport exists yet), else a simulated board with `actuator` attached.
    ///
    /// - Parameters:
    ///   - actuator: a profile name from the profile directories, or a path to a .json.
    ///   - directories: where names are looked up; nil for `ActuatorProfileLoader`'s
    ///     usual search (`$HAPBRIDGE_ACTUATORS`, then `Hardware/actuators` upwards).
    public static func `default`(
        actuator: String = defaultActuatorProfile, directories: [String]? = nil, variant: DeviceVariant = .drv2605L
    ) throws(DeviceSelectionError) -> SelectedDevice {
        let profile: ActuatorProfile
        do { profile = try ActuatorProfileLoader.resolve(actuator, directories: directories) } catch {
            throw .actuatorProfile(error)
        }
        return .simulated(SimulatedBoard(profile: profile, variant: variant))
    }
}

public enum DeviceSelectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The default device's actuator profile could not be loaded.
    case actuatorProfile(ActuatorProfileError)

    public var description: String {
        switch self {
        case .actuatorProfile(let e): "cannot set up the simulated board: \(e)"
        }
    }
}
