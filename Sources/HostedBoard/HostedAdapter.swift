import DeviceInterface
import Foundation

/// An I2C adapter with no microcontroller of its own (a USB-to-I2C bridge), which the
/// device catalog opens by its address scheme and plays through the firmware core hosted
/// in this process. The adapter's module says only what is its own: how to open it and
/// reach the DRV2605 (`HostedI2CPort`), its serial, and the watchdog that stops the chip
/// when the player cannot (`HostedBoardGuard`); the catalog hosts the core on the port
/// (`HostedBoard`), states the serial in HELLO_REPLY and hands the link on
/// (`HostedBoardTransport`) like any other board's.
public protocol HostedAdapter: Sendable {
    /// The scheme its addresses take (`SCHEME`, `SCHEME:SERIAL`): one of
    /// `DeviceAddress.hostedSchemes`, where the address parser learns it.
    var scheme: String { get }
    /// What it is called in messages and summaries (its part name).
    var name: String { get }
    /// Its name with the indefinite article, as a sentence takes it ("an FT232H"): the
    /// article follows how the name is said, which no rule on its letters gets right.
    var nameWithArticle: String { get }
    /// Its wiring document, by repository path (`Hardware/boards/NAME.md`): where `info`
    /// sends a user to allow real-time scheduling, and what the Debian package ships.
    var wiringDocument: String { get }
    /// Its USB vendor and product ID (as `list` finds it: `USBKnownIdentity`), so `list`
    /// can say which address reaches it.
    var usbIdentity: (vendorID: UInt16, productID: UInt16) { get }
    /// Opens the adapter `serial` names (nil: the first one plugged in) with the DRV2605's
    /// EN high, and starts its watchdog when `settings.guardian` asks for one. A failure
    /// says why in the adapter's words, and leaves nothing open.
    func open(serial: String?, settings: HostedAdapterSettings) throws(HostedAdapterError) -> HostedAdapterConnection
    /// The serial of the first one plugged in, read without opening it (nil: none is, or
    /// it has none): what a bare scheme opens, for a caller that must name it first (a
    /// run's per-board lock).
    func firstSerial() -> String?

    /// argv[0] and the kernel's comm of its guardian process (at most 15 characters, the
    /// comm's limit, and no "hapbridge" in it, so a `pkill hapbridge` aimed at a player
    /// that will not stop spares the guardian that stops the chip).
    var guardianProcessName: String { get }
    /// Its guardian's side, run in the guardian process (`hapbridge guard SCHEME`, started
    /// by `open` with `HostedGuardianRequest.arguments`): standard input is the socket to
    /// the player. Watches until the player's end and stops the chip when the player can no
    /// longer; `say` prints a line as things happen. The caller has already checked the
    /// process is the player's child on that socket, named it and set its signals.
    func runGuardian(_ request: HostedGuardianRequest, say: (String) -> Void) -> HostedGuardianOutcome
}

/// How the catalog asks a hosted adapter to run.
public struct HostedAdapterSettings: Sendable, Equatable {
    /// The I2C clock (Hz) the host drives the bus at: 400 kHz (the DRV2605's fast mode)
    /// or 100 kHz (long wires, weak pull-ups).
    public var i2cClockHz: Double
    /// What starts the adapter's watchdog process (`hapbridge guard SCHEME`). The default
    /// is the installed hapbridge's: a program that opens an adapter through the library is
    /// guarded as `hapbridge play` is, or not driven at all.
    public var guardian: GuardianChoice

    /// The I2C clocks a hosted adapter is driven at: up to the DRV2605's fast mode
    /// (400 kHz, its datasheet's fSCL maximum), down to a rate a slow bus still carries
    /// a 1 kHz envelope at (10 kHz: ~3 bytes a millisecond).
    public static let i2cClockRange: ClosedRange<Double> = 10_000...400_000

    /// Why `i2cClockHz` cannot be used (not a number, out of `i2cClockRange`), or nil.
    public var i2cClockProblem: String? {
        Self.i2cClockRange.contains(i2cClockHz) ? nil
            : "an I2C clock of \(i2cClockHz) Hz: give \(Int(Self.i2cClockRange.lowerBound)) to \(Int(Self.i2cClockRange.upperBound)) Hz"
    }

    public init(i2cClockHz: Double = 400_000, guardian: GuardianChoice = .installed) {
        self.i2cClockHz = i2cClockHz
        self.guardian = guardian
    }
}

/// Which watchdog process a hosted adapter starts beside the player.
public enum GuardianChoice: Sendable, Equatable {
    /// The adapter's own guardian, run by the `hapbridge` executable beside this
    /// program, else the first on PATH; with none found, the adapter is not driven.
    case installed
    /// This command.
    case command(GuardianCommand)
    /// None: the caller chose to drive unguarded (nothing stops the chip if the
    /// player dies).
    case none
}

/// What starts a watchdog process: a `hapbridge` executable and the arguments before the
/// ones the adapter adds (`HostedGuardianRequest.arguments`: `guard SCHEME …`).
public struct GuardianCommand: Sendable, Equatable {
    public var executable: String
    public var arguments: [String]
    public init(executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }
}

extension GuardianCommand {
    /// The `hapbridge` executable a library user's program runs guardians with: the one
    /// beside the program (a SwiftPM build directory, an installed prefix's bin), else
    /// the first executable `hapbridge` on PATH; nil when there is none.
    public static func installedHapbridge(arguments: [String]) -> GuardianCommand? {
        let name = "hapbridge"
        var directories: [String] = []
        if let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append((program as NSString).deletingLastPathComponent)
        }
        directories += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in directories where !directory.isEmpty {
            let path = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: path) { return GuardianCommand(executable: path, arguments: arguments) }
        }
        return nil
    }
}

/// An opened hosted adapter, for the catalog to host the core on.
public struct HostedAdapterConnection: Sendable {
    /// The bus to the DRV2605.
    public var port: any HostedI2CPort
    /// The adapter's own serial (its USB serial string), which the hosted core states in
    /// HELLO_REPLY and calibrations are kept under; nil when it has none.
    public var serial: String?
    /// Its watchdog outside this process, when one was asked for.
    public var guardian: (any HostedBoardGuard)?
    /// Print the stamped writes' timing at close (the adapter's own switch).
    public var reportsTiming: Bool

    public init(port: any HostedI2CPort, serial: String?, guardian: (any HostedBoardGuard)?, reportsTiming: Bool = false) {
        self.port = port
        self.serial = serial
        self.guardian = guardian
        self.reportsTiming = reportsTiming
    }
}

/// Why a hosted adapter did not open.
public enum HostedAdapterError: Error, Sendable, Equatable {
    /// It could not be opened: not plugged in, in use, its library failed.
    case open(DeviceError)
    /// It opened, but will not be driven (its watchdog could not start), and was let go.
    case refused(String)
}
