import Foundation

/// A file a command writes (`render --output`, every `--plot`, `library export
/// --output`), or standard output for "-" (or no path, where the command allows it).
///
/// Made before the work, so a location that cannot be written fails in a moment
/// rather than after a long simulation; written once the work is done:
///
/// - a **regular file**, new or existing, is replaced atomically: the data goes to a
///   temporary file beside it, which is renamed over the target, so a reader never
///   sees half a file. An existing file keeps its permission bits (and its owner, if
///   this process may set it);
/// - **anything else** (a character device such as /dev/null, a FIFO, a symbolic
///   link) is written through: opened and written in place, so the device stays a
///   device, the FIFO's reader gets the data and the link still points where it did.
///
/// A directory, a missing parent directory or a socket is one clear line.
struct OutputFile {
    /// What the file holds, for messages: "plot", "output".
    let purpose: String
    /// nil: standard output.
    let path: String?

    /// Checks the location now. `path` nil or "-" is standard output.
    init(_ path: String?, purpose: String) throws(CLIError) {
        self.purpose = purpose
        self.path = path == "-" ? nil : path
        if let target = self.path { _ = try destination(of: target) }
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
        switch try destination(of: path) {
        case .replace(let existing): try replace(path, with: text, keeping: existing)
        case .writeThrough: try writeThrough(path, text)
        }
    }

    enum Destination {
        /// A regular file (its current status, nil if new): atomic replace.
        case replace(stat?)
        /// A device, FIFO or symbolic link: written in place.
        case writeThrough
    }

    /// How `path` is written, or why it cannot be.
    func destination(of path: String) throws(CLIError) -> Destination {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            // ENOTDIR: something on the way is a file; the directory check says which.
            guard code == ENOENT || code == ENOTDIR else { throw failure(path, POSIXFailure(code: code).message) }
            try checkDirectory(of: path)
            return .replace(nil)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw failure(path, "it is a directory")
        case S_IFSOCK: throw failure(path, "it is a socket")
        case S_IFREG:
            try checkDirectory(of: path)
            try checkWritable(path)
            return .replace(info)
        case S_IFLNK:
            var target = stat()
            if stat(path, &target) == 0 {
                if target.st_mode & S_IFMT == S_IFDIR { throw failure(path, "it links to a directory") }
                try checkWritable(path)
            }
            return .writeThrough
        default:
            try checkWritable(path)
            return .writeThrough
        }
    }

    private func failure(_ path: String, _ reason: String) -> CLIError {
        CLIError("cannot write the \(purpose) to \(TerminalText.echo(path)): \(reason)")
    }

    /// The directory a new file or a replacement goes in must exist and take files.
    private func checkDirectory(of path: String) throws(CLIError) {
        let directory = Self.directory(of: path)
        var info = stat()
        guard stat(directory, &info) == 0 else {
            let reason = switch errno {
            case ENOENT: "no such directory \(TerminalText.echo(directory))"
            case ENOTDIR: "part of \(TerminalText.echo(directory)) is not a directory"
            case let code: POSIXFailure(code: code).message
            }
            throw failure(path, reason)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw failure(path, "\(TerminalText.echo(directory)) is not a directory") }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw failure(path, "cannot create files in \(TerminalText.echo(directory)): \(POSIXFailure(code: errno).message)")
        }
    }

    private func checkWritable(_ path: String) throws(CLIError) {
        guard access(path, W_OK) == 0 else { throw failure(path, POSIXFailure(code: errno).message) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private func replace(_ path: String, with text: String, keeping existing: stat?) throws(CLIError) {
        let directory = Self.directory(of: path)
        let baseName = path.split(separator: "/").last.map(String.init) ?? path
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<16 where descriptor < 0 {
            // Hidden, beside the target (a rename cannot cross file systems), and short
            // enough for NAME_MAX whatever the target's name.
            temporary = "\(directory)/.\(baseName.prefix(100)).\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF).tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing == nil ? 0o666 : 0o600)
            if descriptor < 0, errno != EEXIST { throw failure(path, POSIXFailure(code: errno).message) }
        }
        guard descriptor >= 0 else { throw failure(path, "no free temporary name in \(TerminalText.echo(directory))") }
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do throws(POSIXFailure) {
            // The replacement takes the existing file's permissions before it holds any
            // data, so a private file's new contents are never readable by others.
            if let existing {
                guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else { throw POSIXFailure(code: errno) }
                // Keeps the owner where this process may (root); elsewhere the file is
                // ours already or the call fails harmlessly.
                if existing.st_uid != geteuid() || existing.st_gid != getegid() { _ = fchown(descriptor, existing.st_uid, existing.st_gid) }
            }
            try FileDescriptorIO.writeAll(text, to: descriptor)
            guard fsync(descriptor) == 0 else { throw POSIXFailure(code: errno) }
        } catch {
            close(descriptor)
            throw failure(path, error.message)
        }
        guard close(descriptor) == 0 else { throw failure(path, POSIXFailure(code: errno).message) }
        guard rename(temporary, path) == 0 else { throw failure(path, POSIXFailure(code: errno).message) }
        renamed = true
    }

    private func writeThrough(_ path: String, _ text: String) throws(CLIError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure(path, POSIXFailure(code: errno).message) }
        do throws(POSIXFailure) {
            try FileDescriptorIO.writeAll(text, to: descriptor)
        } catch {
            close(descriptor)
            throw failure(path, error.message)
        }
        guard close(descriptor) == 0 else { throw failure(path, POSIXFailure(code: errno).message) }
    }
}
