import FileAccess
import Glibc

/// A file a command writes (`render --output`, every `--plot`, `play --record`,
/// `library export --output`), or standard output for "-" (or no path, where the
/// command allows it).
///
/// Checked before the work, so a location that cannot be written fails in a moment
/// rather than after a long simulation; written once the work is done, by
/// `FileWriter`'s rules: a regular file replaced atomically keeping its mode, a device,
/// FIFO or link written through. A directory, a missing directory or a socket is one
/// clear line, and so is a failed write. A FIFO's reader is waited for (to open it,
/// then to read) only until a signal comes (`Interruption`): the write then ends with
/// "no reader on the FIFO" and the command with the signal's status.
struct OutputFile {
    /// What the file holds, for messages: "plot", "output".
    let purpose: String
    /// nil: standard output. The argument as decoded (`ArgumentText`): its bytes are
    /// the file's name.
    let path: String?

    /// Checks the location now. `path` nil or "-" is standard output.
    init(_ path: String?, purpose: String) throws(CLIError) {
        self.purpose = purpose
        self.path = path == "-" ? nil : path
        if let target = self.path { _ = try destination(of: target) }
    }

    /// Whether two output arguments reach one destination, so that writing both would
    /// run one into the other (standard output) or overwrite it (a file): both "-", the
    /// same path, or paths to one file (by device and inode, so `/dev/stdout` meets
    /// "-"). The null device takes any number of writes, so it meets nothing.
    static func sameDestination(_ a: String, _ b: String) -> Bool {
        func identity(_ path: String) -> (dev_t, ino_t)? {
            var info = stat()
            let found = path == "-" ? fstat(STDOUT_FILENO, &info) == 0 : stat(path, &info) == 0
            return found ? (info.st_dev, info.st_ino) : nil
        }
        let null = identity("/dev/null")
        if let x = identity(a), let y = identity(b) { return x == y && (null.map { $0 != x } ?? true) }
        return a == b
    }

    /// "plot.svg", or "standard output".
    var name: String { path.map { TerminalText.echo($0) } ?? "standard output" }

    var isStandardOutput: Bool { path == nil }

    /// Writes `text`, deciding again how (the location may have changed during the work).
    func write(_ text: String) throws {
        guard let path else {
            try Console.write(text, to: .output)
            return
        }
        do { try FileWriter.write(text, to: FilePath(path), giveUp: { Interruption.shared.reason }) } catch { throw failure(path, error.problem) }
    }

    /// How `path` is written, or why it cannot be.
    func destination(of path: String) throws(CLIError) -> FileWriter.Destination {
        do { return try FileWriter.destination(of: FilePath(path)) } catch { throw failure(path, error.problem) }
    }

    private func failure(_ path: String, _ problem: FileProblem) -> CLIError {
        CLIError("cannot write the \(purpose) to \(TerminalText.echo(path)): \(problem)")
    }
}
