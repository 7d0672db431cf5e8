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

    public var description: String {
        switch self {
        case .preload(let s), .testbed(let s), .harness(let s), .controlSocket(let s), .log(let s),
            .boardState(let s), .invalidSerial(let s), .accessDenial(let s):
            s
        case .enumeration(let board, let step, let detail): "board \(board) did not enumerate: \(step): \(detail)"
        case .noSuchBoard(let name): "no board \(TerminalText.echo(name)) (see `list`)"
        }
    }
}
