import FileAccess
import Glibc

/// A file the user names (a pattern, a profile) or standard input (`-`), read through
/// `FileReader`: bounded whatever the file system says, anything but a regular file
/// refused as what it is. This is the command line's wording of its failures.
enum InputFile {
    /// Why a named input cannot be read, in words that say what the path is.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case noSuchFile(String)
        case notRegular(String, kind: String)
        case directory(String)
        case tooLarge(String, limit: Int)
        case unreadable(String, reason: String)
        case standardInputClosed

        var description: String {
            switch self {
            case .noSuchFile(let path): "\(TerminalText.echo(path)): no such file"
            case .directory(let path): "\(TerminalText.echo(path)) is a directory, not a file"
            case .notRegular(let path, let kind):
                "\(TerminalText.echo(path)) is not a regular file (\(kind)); to read from a pipe, give - and send the data to standard input"
            case .tooLarge(let path, let limit): "\(TerminalText.echo(path)) is larger than the limit of \(bytes(limit))"
            case .unreadable(let path, let reason): "cannot read \(TerminalText.echo(path)): \(reason)"
            case .standardInputClosed: "cannot read standard input: it is closed"
            }
        }

        /// `path` as the user gave it (the decoded argument), for the message.
        init(_ error: FileAccessError, path: String) {
            self = switch error.problem {
            case .noSuchFile: .noSuchFile(path)
            case .isDirectory: .directory(path)
            case .notRegular(let kind): .notRegular(path, kind: kind.description)
            case .tooLarge(let limit, _): .tooLarge(path, limit: limit)
            case .standardInputClosed: .standardInputClosed
            case let problem: .unreadable(path, reason: problem.description)
            }
        }
    }

    /// The name `-` stands for in messages.
    static let standardInputName = "(standard input)"

    /// The whole of `path`, or of standard input for "-", at most `limit` bytes.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        if path == "-" { return try readStandardInput(limit: limit) }
        do { return try FileReader.read(FilePath(path), limit: limit) } catch { throw Failure(error, path: path) }
    }

    static func readStandardInput(limit: Int) throws(Failure) -> [UInt8] {
        guard !Console.isClosed(STDIN_FILENO) else { throw .standardInputClosed }
        do { return try FileReader.readStandardInput(limit: limit) } catch { throw Failure(error, path: standardInputName) }
    }

    /// Checks what is at `path` without reading it, if anything is: the refusal
    /// `read` would give a directory, a device, a FIFO or an oversized file. For a
    /// name the caller may look up elsewhere when no such file exists.
    static func checkIfPresent(_ path: String, limit: Int) throws(Failure) {
        do { try FileReader.check(FilePath(path), limit: limit) } catch {
            if error.problem == .noSuchFile || error.problem == .system(ENOTDIR) { return }
            throw Failure(error, path: path)
        }
    }

    /// "16 MiB (16777216 bytes)".
    static func bytes(_ count: Int) -> String { FileProblem.bytes(count) }
}
