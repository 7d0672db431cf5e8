import Glibc

/// The one way the program writes a file (`render --output`, every `--plot`,
/// `play --record`, the calibration store, `emulate --log`). Where the path is:
///
/// - a **regular file**, new or existing, is replaced atomically: the data goes to a
///   temporary file beside it, flushed to disk, then renamed over the target, and the
///   directory flushed, so a reader sees the old file or the new, never part of one,
///   and a failure leaves the old one as it was. An existing file keeps its permission
///   bits (set before any data is written, so a private file's contents are never
///   readable by others) and its owner where this process may set it;
/// - **anything else** (a character device such as /dev/null, a FIFO, a symbolic
///   link) is written through: opened and written in place, so the device stays a
///   device, the FIFO's reader gets the data and the link still points where it did;
/// - a directory, a socket or a missing directory is a `FileAccessError` saying so,
///   as is every failed write (`/dev/full`: "No space left on device").
///
/// A FIFO's writer waits for a reader, as a shell's redirection does: open(2) blocks
/// until one opens it, and a write blocks while its reader does not read. With a
/// `giveUp` (`DescriptorIO.GiveUp`: a command's signal handling) neither wait is
/// left where nothing looks at the signal: the FIFO is opened non-blocking and its
/// reader polled for, its writes wait in poll(2), and `giveUp`'s reason ends either
/// wait (`FileProblem.noReader`, `.readerStalled`).
public enum FileWriter {
    /// How a path is written.
    public enum Destination: Sendable, Equatable {
        /// A regular file, with what an existing one has to keep (nil: a new file).
        case replace(existing: Ownership?)
        /// A device, FIFO or symbolic link.
        case writeThrough
    }

    /// What a replacement keeps of the file it replaces.
    public struct Ownership: Sendable, Equatable {
        public var mode: mode_t
        public var owner: uid_t
        public var group: gid_t
    }

    /// `bytes` to `path`, by the rules above.
    public static func write(_ bytes: [UInt8], to path: FilePath, giveUp: DescriptorIO.GiveUp? = nil) throws(FileAccessError) {
        let stream = try FileStream(path, giveUp: giveUp)
        try stream.append(bytes)
        try stream.commit()
    }

    public static func write(_ text: String, to path: FilePath, giveUp: DescriptorIO.GiveUp? = nil) throws(FileAccessError) {
        try write(Array(text.utf8), to: path, giveUp: giveUp)
    }

    /// How `path` would be written, or why it cannot be: to check a location before
    /// long work whose result goes there.
    public static func destination(of path: FilePath) throws(FileAccessError) -> Destination {
        var info = stat()
        let found: Int32
        do { found = try path.withCString { lstat($0, &info) } } catch { throw FileAccessError(.write, path, error) }
        guard found == 0 else {
            let code = errno
            // ENOTDIR: something on the way is a file; the directory check says which.
            guard code == ENOENT || code == ENOTDIR else { throw FileAccessError(.write, path, FileProblem(errno: code, path: path)) }
            try checkDirectory(of: path)
            return .replace(existing: nil)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw FileAccessError(.write, path, .isDirectory)
        case S_IFSOCK: throw FileAccessError(.write, path, .isSocket)
        case S_IFREG:
            try checkDirectory(of: path)
            try checkWritable(path)
            return .replace(existing: Ownership(mode: info.st_mode & 0o7777, owner: info.st_uid, group: info.st_gid))
        case S_IFLNK:
            var target = stat()
            if (try? path.withCString({ stat($0, &target) })) == 0 {
                if target.st_mode & S_IFMT == S_IFDIR { throw FileAccessError(.write, path, .linksToDirectory) }
                try checkWritable(path)
            }
            return .writeThrough
        default:
            try checkWritable(path)
            return .writeThrough
        }
    }

    /// Creates `path` and the directories above it that are missing, each new one with
    /// `mode` (0700 for a private store, as the XDG Base Directory Specification asks).
    /// An existing directory, or a link to one, is left as it is.
    public static func makeDirectories(_ path: FilePath, mode: mode_t) throws(FileAccessError) {
        do { try makeMissing(path, mode: mode) } catch {
            // Said of the whole path: which of its names is too long, a directory's or the last.
            if case .nameTooLong = error.problem { throw FileAccessError(.write, path, FileProblem.tooLong(path)) }
            throw FileAccessError(.write, path, error.problem)
        }
    }

    private static func makeMissing(_ path: FilePath, mode: mode_t) throws(FileAccessError) {
        var info = stat()
        if (try? path.withCString({ stat($0, &info) })) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw FileAccessError(.write, path, .notADirectory(path)) }
            return
        }
        let parent = path.directory
        if parent != path, parent != ".", parent != "/" { try makeMissing(parent, mode: mode) }
        let made: Int32
        do { made = try path.withCString { mkdir($0, mode) } } catch { throw FileAccessError(.write, path, error) }
        guard made == 0 || errno == EEXIST else {
            let code = errno
            throw FileAccessError(.write, path, code == ENOTDIR ? .partNotADirectory(path) : FileProblem(errno: code, path: path))
        }
    }

    /// The directory a new file or a replacement goes in must exist and take files.
    static func checkDirectory(of path: FilePath) throws(FileAccessError) {
        let directory = path.directory
        var info = stat()
        let found: Int32
        do { found = try directory.withCString { stat($0, &info) } } catch { throw FileAccessError(.write, path, error) }
        guard found == 0 else {
            let problem: FileProblem = switch errno {
            case ENOENT: .noSuchDirectory(directory)
            case ENOTDIR: .partNotADirectory(directory)
            case let code: FileProblem(errno: code, path: directory)
            }
            throw FileAccessError(.write, path, problem)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw FileAccessError(.write, path, .notADirectory(directory)) }
        guard (try? directory.withCString({ access($0, W_OK | X_OK) })) == 0 else {
            throw FileAccessError(.write, path, .cannotCreateFiles(in: directory, errno: errno))
        }
    }

    private static func checkWritable(_ path: FilePath) throws(FileAccessError) {
        guard (try? path.withCString({ access($0, W_OK) })) == 0 else { throw FileAccessError(.write, path, FileProblem(errno: errno, path: path)) }
    }
}

/// A file written as the program goes (a log), by `FileWriter`'s rules: opened (the
/// location decided then), appended to, committed. Until `commit` a replaced regular
/// file is a temporary beside it, renamed over the target at commit; a stream dropped
/// without a commit removes its temporary and leaves the target as it was. A device,
/// FIFO or link gets each append as it comes.
///
/// `.writtenInPlace` is for a file meant to be read while it is written (a log that a
/// test or a person follows): a regular file is then truncated and written where it
/// is, keeping its inode and so its mode, owner and links, and holds everything up to
/// the last append even if the program is killed.
///
/// Not thread-safe: one owner, or a lock around it.
public final class FileStream {
    public enum RegularFile: Sendable {
        case replacedAtCommit, writtenInPlace
    }

    public let path: FilePath
    private var descriptor: Int32
    /// The temporary file a replacement is written to, renamed at commit.
    private var temporary: FilePath?
    private let isRegular: Bool
    private var finished = false
    /// Ends a wait on a FIFO (`FileWriter`: its reader to come, or to read).
    private let giveUp: DescriptorIO.GiveUp?

    /// How often a FIFO with no reader is tried again (with a `giveUp` to end the wait).
    static let readerPollMicroseconds: UInt32 = 20_000

    public init(_ path: FilePath, regularFile: RegularFile = .replacedAtCommit, giveUp: DescriptorIO.GiveUp? = nil) throws(FileAccessError) {
        self.path = path
        self.giveUp = giveUp
        let destination = try FileWriter.destination(of: path)
        switch (destination, regularFile) {
        case (.replace(let existing), .replacedAtCommit):
            (descriptor, temporary) = try Self.createTemporary(for: path, keeping: existing)
            isRegular = true
        case (.replace(let existing), .writtenInPlace):
            // O_NOFOLLOW: the path was a regular file or nothing a moment ago; a link
            // swapped in since is refused rather than followed.
            let flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | (existing == nil ? O_EXCL : 0)
            descriptor = try Self.open(path, flags)
            isRegular = true
        case (.writeThrough, _):
            descriptor = try Self.openWriteThrough(path, giveUp: giveUp)
            isRegular = false
        }
    }

    deinit {
        guard !finished else { return }
        close(descriptor)
        if let temporary { _ = try? temporary.withCString { unlink($0) } }
    }

    public func append(_ bytes: [UInt8]) throws(FileAccessError) {
        guard !finished else { throw FileAccessError(.write, path, .system(EBADF)) }
        let descriptor = descriptor
        do {
            try DescriptorIO.withoutSIGPIPE { () throws(DescriptorIO.WriteFailure) in try DescriptorIO.writeAll(bytes, to: descriptor, giveUp: giveUp) }
        } catch {
            switch error {
            case .system(let e): throw FileAccessError(.write, path, FileProblem(errno: e.code, path: path))
            case .gaveUp(let why): throw FileAccessError(.write, path, .readerStalled(giveUp: why))
            }
        }
    }

    public func append(_ text: String) throws(FileAccessError) { try append(Array(text.utf8)) }

    /// Flushes what was appended to disk (a regular file; a device or FIFO has nothing
    /// to flush), reporting what a full disk may show only then. The stream stays open.
    public func sync() throws(FileAccessError) {
        guard !finished, isRegular else { return }
        guard fsync(descriptor) == 0 else { throw FileAccessError(.write, path, FileProblem(errno: errno, path: path)) }
    }

    /// Flushes a regular file to disk and puts it in place; closes the descriptor.
    /// Every failure on the way is thrown (a full disk may show only here), and a
    /// failed replacement leaves the target as it was.
    public func commit() throws(FileAccessError) {
        guard !finished else { return }
        finished = true
        var failure: Int32?
        if isRegular, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if let temporary {
            if failure == nil {
                let renamed = (try? temporary.withCString { from in (try? path.withCString { rename(from, $0) }) ?? -1 }) ?? -1
                if renamed != 0 { failure = errno }
            }
            if failure != nil { _ = try? temporary.withCString { unlink($0) } }
        }
        if let failure { throw FileAccessError(.write, path, FileProblem(errno: failure, path: path)) }
        // The rename is durable once the directory's entry is on disk too.
        if temporary != nil { Self.syncDirectory(path.directory) }
    }

    /// A device, FIFO or link opened to be written in place. A FIFO's open waits for
    /// its reader, as a shell's redirection does: blocked in open(2) without
    /// `giveUp`; with it, opened non-blocking (ENXIO while no process reads it) and
    /// tried again until a reader comes or `giveUp` says why not. Such a FIFO stays
    /// non-blocking, so its writes wait in poll(2) where `giveUp` is asked too;
    /// anything else is made blocking again, as it would have been opened.
    private static func openWriteThrough(_ path: FilePath, giveUp: DescriptorIO.GiveUp?) throws(FileAccessError) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        guard let giveUp else { return try open(path, flags) }
        while true {
            let descriptor: Int32
            do { descriptor = try path.withCString { Glibc.open($0, flags | O_NONBLOCK, 0o666) } } catch { throw FileAccessError(.write, path, error) }
            if descriptor >= 0 {
                var info = stat()
                if fstat(descriptor, &info) != 0 || info.st_mode & S_IFMT != S_IFIFO {
                    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                }
                return descriptor
            }
            let code = errno
            // ENXIO is also a device with nothing behind it: only a FIFO is waited for.
            guard code == ENXIO, isFIFO(path) else { throw FileAccessError(.write, path, FileProblem(errno: code, path: path)) }
            if let why = giveUp() { throw FileAccessError(.write, path, .noReader(giveUp: why)) }
            usleep(readerPollMicroseconds)
        }
    }

    /// What `path` leads to (a link followed) is a FIFO.
    private static func isFIFO(_ path: FilePath) -> Bool {
        var info = stat()
        return (try? path.withCString { stat($0, &info) }) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }

    private static func open(_ path: FilePath, _ flags: Int32) throws(FileAccessError) -> Int32 {
        let descriptor: Int32
        do { descriptor = try path.withCString { Glibc.open($0, flags, 0o666) } } catch { throw FileAccessError(.write, path, error) }
        guard descriptor >= 0 else { throw FileAccessError(.write, path, FileProblem(errno: errno, path: path)) }
        return descriptor
    }

    /// A new hidden file beside `path` (a rename cannot cross file systems), with the
    /// existing file's mode and owner before it holds any data.
    private static func createTemporary(for path: FilePath, keeping existing: FileWriter.Ownership?) throws(FileAccessError)
        -> (Int32, FilePath)
    {
        let directory = path.directory
        // Short enough for NAME_MAX whatever the target's name.
        let base = Array(path.lastComponent.bytes.prefix(100))
        for _ in 0..<16 {
            let suffix = Array(".\(UInt32.random(in: 0...UInt32.max)).tmp".utf8)
            let temporary = directory.appending(FilePath(bytes: [UInt8(ascii: ".")] + base + suffix))
            let descriptor: Int32
            do { descriptor = try temporary.withCString { Glibc.open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing == nil ? 0o666 : 0o600) } } catch {
                throw FileAccessError(.write, path, error)
            }
            if descriptor < 0 {
                if errno == EEXIST { continue }
                throw FileAccessError(.write, path, FileProblem(errno: errno, path: path))
            }
            if let existing {
                guard fchmod(descriptor, existing.mode) == 0 else {
                    let code = errno
                    close(descriptor)
                    _ = try? temporary.withCString { unlink($0) }
                    throw FileAccessError(.write, path, .system(code))
                }
                // Keeps the owner where this process may (root); elsewhere the file is
                // ours already or the call fails harmlessly.
                if existing.owner != geteuid() || existing.group != getegid() { _ = fchown(descriptor, existing.owner, existing.group) }
            }
            return (descriptor, temporary)
        }
        throw FileAccessError(.write, path, .noTemporaryName(in: directory))
    }

    private static func syncDirectory(_ directory: FilePath) {
        guard let fd = try? directory.withCString({ Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }), fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
