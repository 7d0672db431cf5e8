import ArgumentParser
import Foundation
import RealTime
import Synchronization

/// SIGINT, SIGTERM, SIGHUP and SIGTSTP while a command drives the actuator (`play`,
/// `measure`, `sweep`, `calibrate`, `diagnose`, `rom`, `run`) or programs a board (`flash`).
///
/// By default these signals kill (or, SIGTSTP, suspend) the process where it stands:
/// nothing is printed, no record or plot is written, and the board plays what it has
/// queued and then holds the last amplitude until its host-silence watchdog ends it (an
/// FT232H, whose firmware core is hosted in the process, until its guardian does). A
/// command that drives the actuator catches them instead: the first one stops the engine
/// (or the bench procedure) and flushes the board at once, the command reports what it
/// did and why it stopped, writes its record and plot, and exits as a shell reports a
/// death by that signal (128 + N: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP),
/// so a script sees the same status either way. A second signal while it stops
/// exits at once, with the same status. `flash` finishes the block in flight instead,
/// stops, and says what the board holds (`FlashStop`, `FlashLeft`).
///
/// SIGTSTP (Ctrl-Z) ends the command the same way — the actuator stopped, the device
/// closed, the report, record and plot written — and only then suspends the process,
/// as the terminal asked (`suspendIfAsked`); continued (`fg`), it exits 148 (128 + 20,
/// the status a shell gives a job stopped by SIGTSTP). Resuming the pattern instead
/// would mean a stale clock sync, a board queue flushed and a drive that restarts
/// mid-pattern; a suspended command that drives nothing is the honest outcome, and a
/// bridge board and an FT232H behave alike. SIGTTIN and SIGTTOU are left to their
/// default (stop): a command stopped that way while it drives is what a bridge board's
/// watchdog and an FT232H's guardian are for.
///
/// The signals reach a thread of their own (`SignalRelay`), so the reaction may lock,
/// allocate and start tasks.
final class Interruption: Sendable {
    /// The signals a driving command turns into an orderly stop.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGTSTP]

    private struct State {
        var signal: Int32?
        var reactions: [@Sendable (Int32) -> Void] = []
        /// Run by a second signal before it exits: quick, async-signal-agnostic work
        /// (the relay's thread runs it) such as removing a lock file.
        var lastWords: [@Sendable () -> Void] = []
        /// What the first signal starts, and what a second one leaves, for the lines said then.
        var stopping = "stopping the actuator"
        var atOnce = ""
    }

    private let state = Mutex(State())

    /// The one instance: signal dispositions belong to the process.
    static let shared = Interruption()

    private init() {}

    /// Installs the handlers (once; later calls do nothing). Called by a command as it
    /// starts to drive, before it opens the device. `stopping`: what the first signal
    /// does, said on standard error as it comes; `atOnce`: what exiting at once on a
    /// second one leaves behind (said after "exiting at once").
    static func install(stopping: String = "stopping the actuator", atOnce: String = "") {
        shared.state.withLock { s in
            s.stopping = stopping
            s.atOnce = atOnce
        }
        _ = installed
    }

    private static let installed = SignalRelay(signals) { shared.received($0) }

    /// The first signal received, if one was.
    var signal: Int32? { state.withLock { $0.signal } }

    /// "SIGINT", for messages.
    var signalName: String? { signal.map(Self.name) }

    /// Runs `reaction` when the first signal comes (at once, if it already came).
    func onInterrupt(_ reaction: @escaping @Sendable (Int32) -> Void) {
        let already: Int32? = state.withLock { s in
            if s.signal == nil { s.reactions.append(reaction) }
            return s.signal
        }
        if let already { reaction(already) }
    }

    /// Runs `action` if a second signal makes the process exit at once (a lock file
    /// removed), before it exits.
    func beforeExitingAtOnce(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.lastWords.append(action) }
    }

    private func received(_ signal: Int32) {
        let (reactions, stopping, atOnce) = state.withLock { s -> ([@Sendable (Int32) -> Void]?, String, String) in
            guard s.signal == nil else { return (nil, s.stopping, s.atOnce) }
            s.signal = signal
            defer { s.reactions = [] }
            return (s.reactions, s.stopping, s.atOnce)
        }
        guard let reactions else {
            // A second signal while stopping: the user wants out now.
            Self.say("\nhapbridge: \(Self.name(signal)) again: exiting at once\(atOnce)\n")
            for action in state.withLock({ $0.lastWords }) { action() }
            _exit(Self.exitStatus(signal))
        }
        let then = signal == SIGTSTP ? "; the command ends, then suspends" : ""
        Self.say("\nhapbridge: \(Self.name(signal)): \(stopping)\(then) (again to exit at once)\n")
        for reaction in reactions { reaction(signal) }
    }

    /// `message` on standard error if it takes it now, else nowhere: the relay's thread
    /// must never block on a full pipe (`2>&1 | less`, paused), or the reactions that
    /// stop the actuator and the exit a second signal asks for would wait with it.
    /// poll(2) reports a pipe writable when PIPE_BUF bytes fit, and a write of fewer is
    /// whole.
    private static func say(_ message: String) {
        var request = pollfd(fd: STDERR_FILENO, events: Int16(POLLOUT), revents: 0)
        guard poll(&request, 1, 0) == 1, request.revents & Int16(POLLOUT) != 0 else { return }
        _ = message.withCString { write(STDERR_FILENO, $0, min(strlen($0), Int(PIPE_BUF))) }
    }

    /// 128 + N, as a shell reports a process that signal N killed.
    static func exitStatus(_ signal: Int32) -> Int32 { 128 + signal }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGTSTP: "SIGTSTP"
        default: "signal \(signal)"
        }
    }

    /// The reason a command stopped, for its report: "interrupted by SIGINT".
    var reason: String? { signalName.map { "interrupted by \($0)" } }

    /// Ends the command with the signal's status when one came; otherwise nothing.
    func exitIfInterrupted() throws(ExitCode) {
        if let signal { throw ExitCode(Self.exitStatus(signal)) }
    }

    /// As the process is about to exit, once the command has returned (its device
    /// closed): when a SIGTSTP ended it, suspends now, as the terminal asked, and returns
    /// when continued (the process then exits 148).
    static func suspendIfAsked() {
        guard shared.signal == SIGTSTP else { return }
        say("hapbridge: suspended (SIGTSTP): the actuator is stopped and the command has ended; continued, it exits with status 148\n")
        installed.suspend(as: SIGTSTP)
    }
}
