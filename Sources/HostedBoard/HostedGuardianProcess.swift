/// The command line a hosted adapter's guardian process is started with, and what it
/// parses back to: one hidden subcommand of the `hapbridge` executable,
/// `guard SCHEME --player PID --node PATH --scl-hz HZ [-- SERIAL]`, which runs the guardian
/// of whichever adapter is registered for SCHEME (`HostedAdapter.runGuardian`). The
/// player (the adapter's `open`) renders it with `arguments`; `hapbridge guard` parses the
/// same names (its options are these constants), so the two ends cannot drift apart.
public struct HostedGuardianRequest: Sendable, Equatable {
    /// The hidden subcommand of `hapbridge` that runs a guardian.
    public static let subcommand = "guard"

    /// The options' long names, as `arguments` writes them and `hapbridge guard` reads them.
    public enum Option {
        public static let player = "player"
        public static let node = "node"
        public static let sclHz = "scl-hz"
    }

    /// The adapter's address scheme (`HostedAdapter.scheme`): which adapter's guardian runs.
    public var scheme: String
    /// The player's process ID: the guardian's parent, whose death it watches for.
    public var player: Int32
    /// The device node the adapter was opened by (its usbfs node, `/dev/bus/usb/BBB/DDD`,
    /// for an adapter libusb opens), which the guardian holds open to take the adapter over.
    public var node: String
    /// The I2C clock the player runs the bus at (Hz), for the guardian's own writes.
    public var sclHz: Int
    /// The adapter's serial, for the guardian's messages and to find the adapter again
    /// should its node be gone.
    public var serial: String?

    public init(scheme: String, player: Int32, node: String, sclHz: Int, serial: String?) {
        self.scheme = scheme
        self.player = player
        self.node = node
        self.sclHz = sclHz
        self.serial = serial
    }

    /// The arguments after the program's own (`GuardianCommand.arguments`).
    public var arguments: [String] {
        [Self.subcommand, scheme, "--\(Option.player)", "\(player)", "--\(Option.node)", node, "--\(Option.sclHz)", "\(sclHz)"]
            + (serial.map { ["--", $0] } ?? [])  // after "--": a serial may begin with "-"
    }
}

/// How a guardian process ended, for its one line on standard error and its exit status.
public enum HostedGuardianOutcome: Sendable, Equatable {
    /// Nothing more to say: the player closed in order (disarmed), or the guardian took
    /// the adapter from a player that could not act (said as it happened) and the player
    /// has now ended. Exit 0.
    case done
    /// The player died without stopping the chip, and the guardian stopped it: what it
    /// did. Exit 0.
    case stoppedAfterDeath(String)
    /// It could not watch over the adapter (its node would not open): why. The player
    /// learns it from the socket's end before it drives. Exit 1.
    case cannotWatch(String)
    /// The chip could not be stopped: why. Exit 1.
    case failed(String)
}

extension GuardianChoice {
    /// The command that starts `adapter`'s guardian (nil: none asked for). `.installed`
    /// finds the hapbridge beside this program or on PATH, and with none refuses, saying
    /// why in `address`'s words: nothing would stop the chip if this program died.
    public func command(for adapter: some HostedAdapter, address: String) throws(HostedAdapterError) -> GuardianCommand? {
        switch self {
        case .none: return nil
        case .command(let c): return c
        case .installed:
            guard let found = GuardianCommand.installedHapbridge(arguments: []) else {
                throw .refused(
                    "\(address): no hapbridge executable beside this program or on PATH to run the \(adapter.name)'s guardian "
                        + "(`hapbridge \(HostedGuardianRequest.subcommand) \(adapter.scheme)`): without it nothing would stop the chip if "
                        + "this program died, were stopped or hung, so it is not driven (install hapbridge, or open with "
                        + "HostedAdapterSettings(guardian: .none) to drive unguarded)")
            }
            return found
        }
    }
}
