import ArgumentParser
import FTDIBridge
import Foundation
import HostedBoard
import RealTime

/// `hapbridge guard-ft232h` (hidden): the guardian a hosted player (`play --device ftdi`
/// and every other command that opens an FT232H with the core hosted) starts beside itself
/// (`FT232HGuardian`, `FT232HGuardianWatch`). Its standard input is a socket to the
/// player; it stops the DRV2605 (standby, EN low) when the player dies, is stopped or
/// hangs without stopping the chip itself. Not for users: it acts on the FT232H at the
/// node it is given.
struct GuardFT232HCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: FT232HAdapter.guardianSubcommand, abstract: "Stop the DRV2605 on an FT232H once the player that started this can no longer.",
        shouldDisplay: false)

    @Option(help: "The player's process ID.")
    var player: Int32

    @Option(help: "The FT232H's usbfs node (/dev/bus/usb/BBB/DDD).")
    var usbfs: String

    @Option(name: .customLong("scl-hz"), help: "The I2C clock the player runs the bus at (Hz).")
    var sclHz: Int = 400_000

    @Argument(help: "The FT232H's serial (for the messages, and for libftdi if the node is gone).")
    var serial: String?

    /// The command line a player starts it with: this very executable
    /// (`/proc/self/exe`, which exec follows to the running binary even if it was
    /// replaced on disk since). `HAPBRIDGE_FT232H_GUARDIAN=off` plays without one (what
    /// the tests use to show the chip keeps driving when an unguarded player dies).
    static func command() -> GuardianChoice {
        if ProcessInfo.processInfo.environment["HAPBRIDGE_FT232H_GUARDIAN"] == "off" { return .none }
        return .command(FT232HGuardian.Command(executable: "/proc/self/exe", arguments: [FT232HAdapter.guardianSubcommand]))
    }

    func validate() throws {
        guard player > 1 else { throw ValidationError("--player is a process ID") }
        guard (1_000...1_000_000).contains(sclHz) else { throw ValidationError("--scl-hz is the I2C clock in Hz") }
    }

    func run() throws {
        // Started by a player, never by hand: its standard input is the socket to the
        // player, whose child it is. Anything else would watch over nothing.
        var stdin = stat()
        guard fstat(0, &stdin) == 0, stdin.st_mode & S_IFMT == S_IFSOCK, getppid() == player else {
            throw CLIError("guard-ft232h is started by the player it watches (--player, its parent), its standard input a socket to it; it is not for use by hand")
        }
        // Signals meant for the player (a Ctrl-C, a SIGTERM, a SIGHUP) must not take the
        // guardian with it; it is in a group of its own, so the terminal's do not reach it.
        // SIGPIPE neither: its one line goes to the player's standard error, which may be
        // a pipe whose reader has gone, and it must still tell the player and hold on.
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { signal(s, SIG_IGN) }
        // Its own name, so `pkill hapbridge` / `killall hapbridge` aimed at the player
        // spare it (argv[0] is the same, for `pkill -f`). /proc/self/comm is the process's
        // (its first thread's), whichever thread writes it.
        if let comm = FileHandle(forWritingAtPath: "/proc/self/comm") {
            comm.write(Data(FT232HGuardian.processName.utf8))
            try? comm.close()
        }
        // Real time where permitted: its reaction must not wait for a busy host.
        _ = ThreadScheduling.adoptForCurrentThread(priority: Self.priority)
        let name = "hapbridge guard-ft232h: FT232H \(serial.map(TerminalText.safe) ?? ""):"
        let takeover: FT232HTakeover
        do { takeover = try FT232HTakeover(path: usbfs) } catch {
            // The player is told by the socket's end, before it drives.
            try? Console.err("\(name) cannot watch over it: \(TerminalText.safe(error.description))")
            throw ExitCode(1)
        }
        let watch = FT232HGuardianWatch(player: player, serial: serial, sclHz: Double(sclHz), takeover: takeover)
        switch watch.run(say: { try? Console.err("\(name) \(TerminalText.safe($0))") }) {
        case .disarmed, .tookOver: return
        case .stoppedAfterDeath(let what):
            try? Console.err("\(name) \(what)")
        case .failed(let why):
            try? Console.err("\(name) could not stop the DRV2605: \(TerminalText.safe(why))")
            throw ExitCode(1)
        }
    }

    /// SCHED_FIFO priority where permitted: below everything of the player's and the
    /// emulation's (timer 30, device 25, answer reader 24, engine 20), above normal tasks.
    static let priority: Int32 = 10
}
