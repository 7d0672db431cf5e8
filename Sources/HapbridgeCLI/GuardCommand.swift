import ArgumentParser
import Devices
import Foundation
import HostedBoard
import RealTime

/// `hapbridge guard SCHEME` (hidden): the guardian a hosted player (`play --device ftdi`
/// and every other command that opens a hosted adapter) starts beside itself, for the
/// adapter registered for SCHEME (`DeviceCatalog.hostedAdapters`), with the arguments
/// `HostedGuardianRequest` renders. Its standard input is a socket to the player; the
/// adapter's `runGuardian` stops the DRV2605 (standby, EN low) when the player dies, is
/// stopped or hangs without stopping the chip itself. Not for users: it acts on the
/// adapter at the node it is given. What every guardian needs of its process is done
/// here once: the check that the player started it, its signals, its name, its priority.
struct GuardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HostedGuardianRequest.subcommand,
        abstract: "Stop the DRV2605 on a hosted adapter once the player that started this can no longer.",
        shouldDisplay: false)

    @Argument(help: "The adapter's address scheme (ftdi).")
    var scheme: String

    @Option(name: .customLong(HostedGuardianRequest.Option.player), help: "The player's process ID.")
    var player: Int32

    @Option(name: .customLong(HostedGuardianRequest.Option.node), help: "The adapter's device node (/dev/bus/usb/BBB/DDD).")
    var node: String

    @Option(name: .customLong(HostedGuardianRequest.Option.sclHz), help: "The I2C clock the player runs the bus at (Hz).")
    var sclHz: Int = 400_000

    @Argument(help: "The adapter's serial (for the messages, and to find it again if the node is gone).")
    var serial: String?

    /// The guardian every command's hosted adapter starts: this very executable
    /// (`/proc/self/exe`, which exec follows to the running binary even if it was
    /// replaced on disk since), `guard SCHEME` and the request added by the adapter.
    static let choice = GuardianChoice.command(GuardianCommand(executable: "/proc/self/exe", arguments: []))

    func validate() throws {
        guard DeviceCatalog.hostedAdapter(scheme: scheme) != nil else {
            throw ValidationError(
                "no hosted adapter answers to \(TerminalText.safe(scheme)) (\(DeviceCatalog.hostedAdapters.map(\.scheme).joined(separator: ", ")))")
        }
        guard player > 1 else { throw ValidationError("--player is a process ID") }
        guard (1_000...1_000_000).contains(sclHz) else { throw ValidationError("--scl-hz is the I2C clock in Hz") }
    }

    func run() throws {
        // validate() found it.
        guard let adapter = DeviceCatalog.hostedAdapter(scheme: scheme) else { throw ExitCode(ExitStatus.usage.rawValue) }
        // Started by a player, never by hand: its standard input is the socket to the
        // player, whose child it is. Anything else would watch over nothing.
        var stdin = stat()
        guard fstat(0, &stdin) == 0, stdin.st_mode & S_IFMT == S_IFSOCK, getppid() == player else {
            throw CLIError(
                "\(HostedGuardianRequest.subcommand) is started by the player it watches (--player, its parent), its standard input a socket to it; it is not for use by hand")
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
            comm.write(Data(adapter.guardianProcessName.utf8))
            try? comm.close()
        }
        // Real time where permitted: its reaction must not wait for a busy host.
        _ = ThreadScheduling.adoptForCurrentThread(priority: Self.priority)
        let name = "hapbridge \(HostedGuardianRequest.subcommand) \(adapter.scheme): \(adapter.name) \(serial.map(TerminalText.safe) ?? ""):"
        let request = HostedGuardianRequest(scheme: adapter.scheme, player: player, node: node, sclHz: sclHz, serial: serial)
        switch adapter.runGuardian(request, say: { try? Console.err("\(name) \(TerminalText.safe($0))") }) {
        case .done: return
        case .stoppedAfterDeath(let what):
            try? Console.err("\(name) \(TerminalText.safe(what))")
        case .cannotWatch(let why):
            // The player is told by the socket's end, before it drives.
            try? Console.err("\(name) cannot watch over it: \(TerminalText.safe(why))")
            throw ExitCode(ExitStatus.failure.rawValue)
        case .failed(let why):
            try? Console.err("\(name) could not stop the DRV2605: \(TerminalText.safe(why))")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
    }

    /// SCHED_FIFO priority where permitted: below everything of the player's and the
    /// emulation's (timer 30, device 25, answer reader 24, engine 20), above normal tasks.
    static let priority: Int32 = 10
}
