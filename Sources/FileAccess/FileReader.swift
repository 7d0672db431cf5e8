import Glibc

/// The one way the program reads a file (a pattern, a profile, a calibration file)
/// or standard input: bounded, whatever the path turns out to be.
///
/// The path is opened first and judged by what was opened (`fstat`), so a symbolic
/// link is judged by its target and nothing can be swapped in between a check and the
/// read. Anything but a regular file is refused as what it is, before a byte is read:
/// a FIFO would block (the open itself is non-blocking for that reason), `/dev/zero`
/// never ends. A regular file the file system says is over the limit is refused
/// without reading it; one that says 0 bytes and never ends (`/proc/self/pagemap`)
/// costs the limit and one chunk, no more.
public enum FileReader {
    /// The whole of `path`, at most `limit` bytes.
    public static func read(_ path: FilePath, limit: Int) throws(FileAccessError) -> [UInt8] {
        let descriptor = try open(path, limit: limit)
        defer { close(descriptor) }
        let bytes: [UInt8]
        do { bytes = try DescriptorIO.read(descriptor, upTo: limit) } catch {
            throw FileAccessError(.read, path, FileProblem(errno: error.code, path: path))
        }
        guard bytes.count <= limit else { throw FileAccessError(.read, path, .tooLarge(limit: limit, size: nil)) }
        return bytes
    }

    /// Refuses what `read` would refuse, short of reading: for a file another library
    /// reads itself.
    public static func check(_ path: FilePath, limit: Int) throws(FileAccessError) {
        close(try open(path, limit: limit))
    }

    /// Standard input, read as a stream (a pipe is what `-` is for), at most `limit` bytes.
    public static func readStandardInput(limit: Int) throws(FileAccessError) -> [UInt8] {
        guard fcntl(STDIN_FILENO, F_GETFD) >= 0 else { throw FileAccessError(.read, nil, .standardInputClosed) }
        let bytes: [UInt8]
        do { bytes = try DescriptorIO.read(STDIN_FILENO, upTo: limit) } catch {
            throw FileAccessError(.read, nil, error.code == EBADF ? .standardInputClosed : .system(error.code))
        }
        guard bytes.count <= limit else { throw FileAccessError(.read, nil, .tooLarge(limit: limit, size: nil)) }
        return bytes
    }

    /// An open descriptor on the regular file at `path`, back in blocking mode, its
    /// size checked against `limit`.
    private static func open(_ path: FilePath, limit: Int) throws(FileAccessError) -> Int32 {
        let descriptor: Int32
        do { descriptor = try path.withCString { Glibc.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } } catch {
            throw FileAccessError(.read, path, error)
        }
        guard descriptor >= 0 else {
            let code = errno
            // ENXIO: opening a socket.
            throw FileAccessError(.read, path, code == ENXIO ? .notRegular(.socket) : FileProblem(errno: code, path: path))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FileAccessError(.read, path, .system(code))
        }
        let kind = FileKind(mode: info.st_mode)
        let problem: FileProblem? = switch kind {
        case .regular: Int(info.st_size) > limit ? .tooLarge(limit: limit, size: Int(info.st_size)) : nil
        case .directory: .isDirectory
        default: .notRegular(kind)
        }
        if let problem {
            close(descriptor)
            throw FileAccessError(.read, path, problem)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }
}

extension FileReader {
    /// The names in `directory` ("." and ".." left out), unsorted; empty when it
    /// cannot be listed (a missing store is an empty one).
    public static func names(in directory: FilePath) -> [FilePath] {
        guard let stream = try? directory.withCString({ opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var names: [FilePath] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(FilePath(bytes: name)) }
        }
        return names
    }
}
