import ArgumentParser

/// The process's exit status; the README's "Exit codes" section and the root
/// command's help list the same values.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// Something failed while the command ran: a file that cannot be read or written,
    /// a profile or pattern that cannot be used, a device error, a FAIL from
    /// `calibrate`/`diagnose`/`rom`, output that could not be delivered; a play that
    /// ran to its end but lost commands, or whose delivery the board did not confirm.
    case failure = 1
    /// The command line is wrong (unknown option, missing or malformed value, a value
    /// out of its range, or `--actuator` missing for a board with no stored calibration:
    /// `ActuatorChoice`): nothing was run.
    case usage = 2
    /// `play` or `measure` started the pattern and it stopped before its end (the
    /// board's drive time limit, a chip fault, the board falling behind, the device
    /// going away): what was measured is printed.
    case incomplete = 3
    /// `play` or `measure` played to the end but not on time: a command left the host
    /// after its stamp, or the board started one more than 100 µs late (an underrun;
    /// `PlayResult.playedLate`). A `run` step that played late ERRORs.
    case playedLate = 4
    // 5, 6, 7 and 8: `flash` (`FlashCommand`'s statuses: the image refused, no
    // bootloader, the read-back differs, the write interrupted). No status means two
    // things, so a script that runs several commands reads each status one way.
    /// `run`: a test ERRORed (a device vanished, a step timed out or could not run, a
    /// play that ran late), or the run was cut short (a health check failed, `--timeout`).
    case runError = 9
    /// `run`: a board the bench names is locked by another run, still after `--wait`
    /// if given (`BoardLock`: who holds it is printed).
    case boardLocked = 10
    /// `run`: a test FAILed (a measurement out of its limits, a procedure's FAIL) and
    /// none ERRORed.
    case runFailed = 11
    /// `diff`: the trace is outside a limit of its reference (onset, envelope or peak);
    /// the figures and verdicts are printed. Its own status, as `run`'s FAIL is 11, so a
    /// script tells a trace that differs from one that could not be compared (1).
    case tracesDiffer = 12

    // 128 + N: `play`, `measure`, `sweep`, `calibrate`, `diagnose`, `rom` and `run`
    // stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129) after stopping the
    // actuator, or a wait for a FIFO's reader ended by it; `flash` after the block in
    // flight, whatever the board holds (`FlashCommand.stoppedStatus`); or ended by
    // SIGTSTP and then suspended (148, once continued); see `Interruption`.

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// One line per status, for help texts.
    static let summary = "Exit status: 0 success, 1 failure (run time), 2 usage error (nothing run), 3 played but stopped before the pattern's end, 4 played to the end but late (a command sent after its stamp, or an underrun), 5–8 `flash` (see `hapbridge flash --help`), 9 / 10 / 11 `run`: a test ERRORed or the run was cut short / a board is locked by another run / a test FAILed and none ERRORed, 12 `diff`: the trace is outside a limit of its reference, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (the actuator stopped first; `flash`: after the block in flight, saying what the board holds), 148 ended by SIGTSTP (Ctrl-Z: the actuator stopped, then suspended); `emulate` exits with its COMMAND's status (see `hapbridge emulate --help`)."
}

/// A failure at run time, said in one line (exit status 1): what failed, on what,
/// and why. Never a usage error: the command line was fine.
struct CLIError: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
