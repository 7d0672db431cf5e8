import ArgumentParser
import Foundation
import HostedBoard

/// `hapbridge guard-ft232h [SERIAL]` (hidden): the guardian `play` starts beside itself
/// on an FT232H (`FT232HGuardian`). It waits for its standard input to close; unless
/// the player disarmed it first, it opens the FT232H and puts the DRV2605 in standby
/// with EN low. Not for users: it acts on whatever FT232H has that serial.
struct GuardFT232HCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guard-ft232h", abstract: "Stop the DRV2605 on an FT232H once the player that started this ends.", shouldDisplay: false)

    @Argument(help: "The FT232H's serial (nil: the first one).")
    var serial: String?

    /// The command line `play` starts it with: this executable, as the kernel knows it.
    /// `HAPBRIDGE_FT232H_GUARDIAN=off` plays without one (what the tests use to show the
    /// chip keeps driving when a player dies unguarded).
    static func command() -> [String]? {
        if ProcessInfo.processInfo.environment["HAPBRIDGE_FT232H_GUARDIAN"] == "off" { return nil }
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return [path, "guard-ft232h"]
    }

    func run() throws {
        // A Ctrl-C or a SIGTERM meant for the player must not take the guardian with it.
        for s in [SIGINT, SIGTERM, SIGHUP] { signal(s, SIG_IGN) }
        switch FT232HGuardian.watch(serial: serial) {
        case .disarmed: return
        case .stopped(let what):
            try? Console.err("hapbridge guard-ft232h: FT232H \(serial ?? ""): \(what)")
        case .failed(let why):
            try? Console.err("hapbridge guard-ft232h: FT232H \(serial ?? ""): could not stop the DRV2605: \(TerminalText.safe(why))")
            throw ExitCode(1)
        }
    }
}
