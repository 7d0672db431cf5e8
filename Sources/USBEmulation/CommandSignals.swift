import Glibc
import RealTime
import Synchronization

/// The emulation's signals, from before COMMAND starts until the emulation is done.
///
/// While COMMAND runs, SIGTERM and SIGHUP are passed on to it (held until it exists
/// if they come first), SIGINT is left to reach it from the terminal as it reaches us,
/// and SIGUSR1 / SIGUSR2 go to `hotplug` (unplug / replug) when the emulation has one.
///
/// SIGTSTP (Ctrl-Z) too reaches COMMAND from the terminal; the emulation, a device,
/// does not stop at it: it keeps answering while COMMAND stops what it drives (`play`
/// stops the actuator and closes the device before it suspends), and suspends itself
/// once COMMAND has been stopped by SIGTSTP, so the shell sees the job stopped. When
/// continued (`fg` continues the whole group) it makes sure COMMAND is too. COMMAND
/// stopped any other way (SIGSTOP, a debugger, SIGTTOU) leaves the emulation running,
/// as a device keeps running when its host process stops. Once COMMAND has ended, a
/// SIGTSTP suspends the emulation as it would have by default.
///
/// Once COMMAND has ended nothing is passed on: the first SIGINT, SIGTERM or SIGHUP is
/// kept (`sinceCommandEnded`) for the emulation's own work after COMMAND to give up by
/// — writing `--log` or `--dump` to a FIFO waits for its reader — and a second ends the
/// process at once (128 + N). Without this the relay's handlers would stay installed
/// with no one reading them, and only SIGKILL would end an emulation stuck there.
final class CommandSignals: Sendable {
    private struct State {
        /// COMMAND once it runs.
        var process: ChildProcess?
        /// What COMMAND is to be sent when it runs.
        var pending: [Int32] = []
        var commandEnded = false
        /// The first SIGINT, SIGTERM or SIGHUP after COMMAND ended.
        var afterCommand: Int32?
    }

    /// The state, shared with the relay's thread.
    private final class Shared: Sendable {
        let state = Mutex(State())
        /// The relay, once made (its handler suspends through it).
        let relayBox = Mutex<SignalRelay?>(nil)
        var relay: SignalRelay? { relayBox.withLock { $0 } }
    }

    private let shared: Shared
    private let relay: SignalRelay

    /// In place before COMMAND exists: it may signal at once.
    init(hotplug: (@Sendable (Int32) -> Void)?) {
        let shared = Shared()
        self.shared = shared
        relay = SignalRelay(ChildProcess.emulationSignals) { signal in
            if signal == SIGUSR1 || signal == SIGUSR2 {
                hotplug?(signal)
                return
            }
            if signal == SIGTSTP {
                // While COMMAND runs it gets its own from the terminal (`run` follows its stop).
                if shared.state.withLock({ $0.commandEnded }) { shared.relay?.suspend(as: SIGTSTP) }
                return
            }
            let exitNow: Bool = shared.state.withLock { s in
                if s.commandEnded {
                    guard s.afterCommand == nil else { return true }
                    s.afterCommand = signal
                } else if signal != SIGINT {  // SIGINT: COMMAND gets it from the terminal as we do
                    if let p = s.process { p.send(signal) } else { s.pending.append(signal) }
                }
                return false
            }
            if exitNow { _exit(128 + signal) }
        }
        shared.relayBox.withLock { $0 = relay }
    }

    /// Runs COMMAND to its end: its status, or the spawn failure's after `report`ing it.
    func run(_ command: [String], report: @Sendable (String) -> Void) -> Int32 {
        defer { shared.state.withLock { $0.commandEnded = true } }
        switch ChildProcess.spawn(command) {
        case .success(let c):
            shared.state.withLock { s in
                s.process = c
                s.pending.forEach(c.send)
                s.pending = []
            }
            return c.wait(stopped: { [relay] signal in
                guard signal == SIGTSTP else { return }
                relay.suspend(as: SIGTSTP)
                c.send(SIGCONT)
            })
        case .failure(let f):
            report(f.message)
            return f.status
        }
    }

    /// The first SIGINT, SIGTERM or SIGHUP that came after COMMAND ended, if one did.
    var sinceCommandEnded: Int32? { shared.state.withLock { $0.afterCommand } }

    /// "interrupted by SIGTERM" once such a signal came: a `DescriptorIO.GiveUp` for
    /// the emulation's writes after COMMAND.
    var giveUpReason: String? { sinceCommandEnded.map { "interrupted by \(Self.name($0))" } }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// Ends the relay's thread (its handlers stay: the process is on its way out).
    func stop() { relay.stop() }
}
