import Actuators
import ArgumentParser
import BridgeLink
import BridgeProtocol
import DeviceInterface
import Devices

/// Which actuator a command that drives one (`play`, `measure`, `calibrate`, `rom`)
/// drives when `--actuator` is not given. A command must never guess what is wired to
/// a real board: a profile's rated and overdrive voltages set how hard the chip drives
/// (a C10-100's 3 V overdrive is past what many coin LRAs and ERMs are rated for), so:
///
/// 1. `--actuator PROFILE`: that profile, on every device;
/// 2. the simulated board: the actuator it simulates (`SimulatedBoardSetup.defaultActuatorProfile`);
/// 3. a board (bridge board, FT232H) with calibrations stored for the serial it states
///    in HELLO_REPLY: the profile of the one actuator calibrated on it, by its id
///    (`hapbridge calibrate --actuator PROFILE` stored it);
/// 4. otherwise nothing is driven: the command stops with status 2 (usage) saying
///    what to give.
enum ActuatorChoice {
    /// `--actuator`'s help in the commands that follow the rule.
    static let help =
        "Actuator profile: a name from Hardware/actuators (e.g. pmd-c10-100) or a path to your own .json. Without it: the simulated "
        + "board's own actuator; on a board, the one `hapbridge calibrate` stored for its serial; with neither, nothing is driven (exit 2)."

    /// The profile a device is opened with: the simulated board is built around it, a
    /// real board ignores it (its actuator is decided once it has said who it is).
    static func forOpening(_ given: ActuatorProfileLoader.LoadedProfile?) throws(CLIError) -> ActuatorProfile {
        if let given { return given.profile }
        return try loadActuatorProfile(SimulatedBoardSetup.defaultActuatorProfile)
    }

    /// The actuator to drive (the rule above) and, when it was not named on the command
    /// line, why this one (for the command's "actuator:" line).
    struct Chosen {
        enum Why { case given, simulated, stored }
        var loaded: ActuatorProfileLoader.LoadedProfile
        var why: Why
        var boardSerial: String?
        var reason: String? {
            switch why {
            case .given: nil
            case .simulated: "the simulated board's actuator"
            case .stored: boardSerial.map { "calibrated on board \($0)" }
            }
        }
        var profile: ActuatorProfile { loaded.profile }

        /// "PMD C10-100, profile FILE" and the reason, for the command's report.
        var line: String { "\(profile.displayName), profile \(TerminalText.safe(loaded.file))" + (reason.map { " (\($0))" } ?? "") }

        /// A board's actuator taken from its stored calibration, said on standard error
        /// by the commands whose report has no "actuator:" line.
        func noteIfStored() {
            if case .stored = why { try? Console.err("note: actuator \(line)") }
        }
    }

    /// Decides for a device that is open: `given` is `--actuator`'s profile; a real board
    /// without it is asked its serial (HELLO) on a link of its own. A refusal closes
    /// the device.
    static func decide(
        command: String, given: ActuatorProfileLoader.LoadedProfile?, opened: borrowing OpenedDevice,
        store: () throws -> CalibrationStore = { try CalibrationStore.user() }
    ) async throws -> Chosen {
        do { return try await choose(command: command, given: given, address: opened.address, link: opened.link(), store: store) } catch {
            // Nothing was driven; the board's interface is let go before the refusal.
            opened.transport.close()
            throw error
        }
    }

    private static func choose(
        command: String, given: ActuatorProfileLoader.LoadedProfile?, address: DeviceAddress, link: @autoclosure () -> BridgeLink,
        store: () throws -> CalibrationStore
    ) async throws -> Chosen {
        if let given { return Chosen(loaded: given, why: .given) }
        if address == .simulated {
            return Chosen(loaded: try locateActuatorProfile(SimulatedBoardSetup.defaultActuatorProfile), why: .simulated)
        }
        // `UNSET` is the firmware's word for "no serial": nothing is stored under it.
        let boardSerial = try await statedSerial(link()).flatMap { $0 == BoardSerialNumber.unset.text ? nil : $0 }
        let stored = boardSerial.flatMap { s in (try? store())?.actuators(calibratedFor: s) } ?? []
        guard stored.count == 1, let id = stored.first, let boardSerial else {
            try Console.err("Error: " + refusal(command: command, address: address, serial: boardSerial, stored: stored))
            throw ExitStatus.usage.exitCode
        }
        let loaded: ActuatorProfileLoader.LoadedProfile
        do { loaded = try locateActuatorProfile(id) } catch {
            throw CLIError(
                "board \(boardSerial) (\(address)) was calibrated with actuator \(TerminalText.echo(id)), whose profile cannot be loaded by that name (\(error)): "
                    + "name its file with --actuator PATH")
        }
        return Chosen(loaded: loaded, why: .stored, boardSerial: boardSerial)
    }

    /// What a user reads when the actuator is unknown: which board, why it is unknown,
    /// and the two ways out.
    static func refusal(command: String, address: DeviceAddress, serial: String?, stored: [String]) -> String {
        let board = serial.map { "board \($0) (\(address))" } ?? "the board at \(address)"
        if stored.count > 1 {
            return "\(board) has calibrations stored for several actuators (\(stored.joined(separator: ", "))): "
                + "say which is wired with --actuator, e.g. `hapbridge \(command) --actuator \(stored[0]) …`; nothing was driven"
        }
        let names = ActuatorProfileLoader.availableNames()
        // `calibrate` is itself the way to keep one: it is only told to name the profile.
        let store: String? =
            serial == nil
            ? "its firmware states no serial, so no calibration can be kept for it (`hapbridge flash --serial S` gives it one)"
            : command == "calibrate" ? nil
            : "or keep one for this board once with `hapbridge calibrate --actuator PROFILE --device \(address)`, which `\(command)` then uses"
        return "which actuator is wired to \(board) is unknown, and a profile's voltages set how hard the chip drives it: "
            + "give --actuator PROFILE (\(names.isEmpty ? "" : "shipped: \(names.joined(separator: ", ")); ")or your own .json); "
            + (store.map { "\($0); " } ?? "") + "nothing was driven"
    }

    /// The serial a board states in HELLO_REPLY, asked on a link of its own that leaves
    /// the transport open for the command (its engine or bench says HELLO again).
    static func statedSerial(_ link: BridgeLink) async throws(CLIError) -> String? {
        do { return try await link.open().serialNumber } catch { throw CLIError(TerminalText.safe(error.description)) }
    }
}
