import Foundation
import Glibc

/// Signals acted on by a thread of their own, so the reaction may lock, allocate and
/// start tasks: the handlers are installed with sigaction before this returns, so a
/// signal that comes the moment after is never met by the default disposition nor
/// lost; the C handler only writes the signal's number to a pipe the thread reads
/// (write is async-signal-safe). Used by `hapbridge emulate` (its COMMAND gets the
/// defaults back at spawn) and by the CLI's commands that drive the actuator
/// (`Interruption`). One relay a process: the handler's pipe is process-wide.
public final class SignalRelay: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    public init(_ signals: [Int32], handle: @escaping @Sendable (Int32) -> Void) {
        var fds: [Int32] = [-1, -1]
        pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        readEnd = fds[0]
        writeEnd = fds[1]
        signalRelayWriteEnd = fds[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(signalRelayWriteEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for s in signals { sigaction(s, &action, nil) }
        let readEnd = readEnd
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { break }
                handle(Int32(byte))
            }
            close(readEnd)
        }
    }

    /// Ends the thread (the handlers stay: the process is on its way out).
    public func stop() { close(writeEnd) }

    /// Stops this process as `signal`'s default action does (a job-control stop: the shell
    /// shows the job stopped, `fg` or SIGCONT continues it) and returns once it is
    /// continued, with this relay's handler back in place. Sent to the calling thread
    /// (`raise`), so the stop happens before the call returns. In an orphaned process
    /// group the kernel discards a job-control stop: it returns at once.
    public func suspend(as signal: Int32) {
        var defaultAction = sigaction()
        defaultAction.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&defaultAction.sa_mask)
        var relayed = sigaction()
        sigaction(signal, &defaultAction, &relayed)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        var mask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &only, &mask)
        raise(signal)
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        sigaction(signal, &relayed, nil)
    }
}

/// The pipe the signal handler writes to: a C handler can capture nothing, and it is
/// set once, before any handler is installed.
nonisolated(unsafe) private var signalRelayWriteEnd: Int32 = -1
