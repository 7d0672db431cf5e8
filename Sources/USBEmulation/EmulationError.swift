import FileAccess
/// Everything that stops an emulation, each with what a user needs to act on it.
public enum EmulationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// umockdev's preload library is not installed or not loaded.
    case preload(String)
    /// umockdev refused a testbed operation.
    case testbed(String)
    /// A device did not enumerate: which board, which step, what it answered.
    case enumeration(board: String, step: String, detail: String)
    /// The simavr harness child could not be started or stopped talking.
    case harness(String)
    /// A serial number that breaks the firmware's rule (`BoardSerialNumber`).
    case invalidSerial(String)
    /// A control command named a board that is not there.
    case noSuchBoard(String)
    /// The board is already in the state asked for.
    case boardState(String)
    /// The control socket could not be set up or reached.
    case controlSocket(String)
    /// The log file could not be opened or read.
    case log(String)
    /// `--deny-access` could not make the nodes refuse COMMAND.
    case accessDenial(String)
    /// After COMMAND ended, a signal cut the emulation's own work short (a `--log` or
    /// `--dump` FIFO whose reader never came): what was not done, and the signal, whose
    /// status (128 + N) the emulation exits with.
    case interrupted(String, signal: Int32)

    public var description: String {
        switch self {
        case .preload(let s), .testbed(let s), .harness(let s), .controlSocket(let s), .log(let s),
            .boardState(let s), .invalidSerial(let s), .accessDenial(let s), .interrupted(let s, _):
            s
        case .enumeration(let board, let step, let detail): "board \(board) did not enumerate: \(step): \(detail)"
        case .noSuchBoard(let name): "no board \(TerminalText.echo(name)) (see `list`)"
        }
    }
}

extension EmulationError {
    /// The status `hapbridge emulate` exits with for this error: 125 (the emulation
    /// failed), or 128 + N when signal N cut its work after COMMAND short.
    public var exitStatus: Int32 {
        if case .interrupted(_, let signal) = self { return 128 + signal }
        return ChildProcess.emulationFailed
    }
}
