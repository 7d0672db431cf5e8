import Foundation

/// Reading a file the user names (a pattern, a profile) or standard input (`-`),
/// bounded whatever the file system says: the read stops once it is past the limit
/// (by one 64 KiB chunk at most), so a file whose `stat` size is 0 and that never
/// ends (`/proc/self/pagemap`) costs the limit, not the file.
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
    }

    /// The name `-` stands for in messages.
    static let standardInputName = "(standard input)"

    /// The whole of `path`, or of standard input for "-", at most `limit` bytes.
    /// Anything but a regular file is refused before it is read (a FIFO would block,
    /// `/dev/zero` never ends), except standard input, which is read as a stream.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        if path == "-" { return try readStandardInput(limit: limit) }
        // O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(opening: path, code: errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(path, reason: POSIXFailure(code: errno).message) }
        try requireRegular(path, mode: info.st_mode)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let bytes: [UInt8]
        do { bytes = try FileDescriptorIO.read(descriptor, upTo: limit) } catch {
            throw error.code == EISDIR ? .directory(path) : .unreadable(path, reason: error.message)
        }
        guard bytes.count <= limit else { throw .tooLarge(path, limit: limit) }
        return bytes
    }

    static func readStandardInput(limit: Int) throws(Failure) -> [UInt8] {
        guard !Console.isClosed(STDIN_FILENO) else { throw .standardInputClosed }
        let bytes: [UInt8]
        do { bytes = try FileDescriptorIO.read(STDIN_FILENO, upTo: limit) } catch {
            throw error.code == EBADF ? .standardInputClosed : .unreadable(standardInputName, reason: error.message)
        }
        guard bytes.count <= limit else { throw .tooLarge(standardInputName, limit: limit) }
        return bytes
    }

    /// Checks what is at `path` without reading it, if anything is: the refusal
    /// `read` would give a directory, a device, a FIFO or an oversized file. For
    /// inputs another module reads itself (actuator profiles).
    static func checkIfPresent(_ path: String, limit: Int) throws(Failure) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return }
            throw failure(opening: path, code: errno)
        }
        try requireRegular(path, mode: info.st_mode)
        guard info.st_size <= Int64(limit) else { throw .tooLarge(path, limit: limit) }
    }

    private static func requireRegular(_ path: String, mode: mode_t) throws(Failure) {
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .directory(path)
        default: throw .notRegular(path, kind: kind(of: mode))
        }
    }

    private static func failure(opening path: String, code: Int32) -> Failure {
        switch code {
        case ENOENT: .noSuchFile(path)
        case ENXIO: .notRegular(path, kind: "a socket")
        default: .unreadable(path, reason: POSIXFailure(code: code).message)
        }
    }

    /// "a FIFO", "a character device", … for messages.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }

    /// "16 MiB (16777216 bytes)".
    static func bytes(_ count: Int) -> String {
        count >= 1 << 20 && count % (1 << 20) == 0 ? "\(count >> 20) MiB (\(count) bytes)" : "\(count) bytes"
    }
}
