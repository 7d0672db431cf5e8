import Glibc

/// Why a file could not be read or written, in words a user can act on: what the path
/// is (a FIFO, a directory), which limit it broke, or the system's reason, with
/// ENAMETOOLONG given its figures rather than "file name is invalid".
public enum FileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchFile
    case isDirectory
    /// Not a regular file where one is read (a FIFO would block, /dev/zero never ends).
    case notRegular(FileKind)
    /// Larger than `limit`; `size` when the file system said how large (a regular file).
    case tooLarge(limit: Int, size: Int?)
    /// A name in the path is longer than the file system takes.
    case nameTooLong(bytes: Int, allowed: Int, isLast: Bool)
    case pathTooLong(bytes: Int, allowed: Int)
    case noSuchDirectory(FilePath)
    case notADirectory(FilePath)
    /// Something on the way to `FilePath` is a file, not a directory.
    case partNotADirectory(FilePath)
    case cannotCreateFiles(in: FilePath, errno: Int32)
    case linksToDirectory
    case isSocket
    case noTemporaryName(in: FilePath)
    case nulInName
    case standardInputClosed
    /// A FIFO no process had open for reading, and the wait for one was given up
    /// (`DescriptorIO.GiveUp`'s reason: "interrupted by SIGINT").
    case noReader(giveUp: String)
    /// A FIFO whose reader stopped reading before all was written; the wait for it
    /// was given up.
    case readerStalled(giveUp: String)
    /// Any other errno, as the system words it.
    case system(Int32)

    public var description: String {
        switch self {
        case .noSuchFile: "no such file"
        case .isDirectory: "it is a directory"
        case .notRegular(let kind): "it is \(kind), not a regular file"
        case .tooLarge(let limit, let size):
            "it is larger than the limit of \(Self.bytes(limit))" + (size.map { " (\($0) bytes)" } ?? "")
        case .nameTooLong(let bytes, let allowed, let isLast):
            "\(isLast ? "the file name" : "a directory name in the path") is too long (\(bytes) bytes, the file system allows \(allowed))"
        case .pathTooLong(let bytes, let allowed): "the path is too long (\(bytes) bytes, the system allows \(allowed))"
        case .noSuchDirectory(let directory): "no such directory \(directory)"
        case .notADirectory(let path): "\(path) is not a directory"
        case .partNotADirectory(let path): "part of \(path) is not a directory"
        case .cannotCreateFiles(let directory, let code): "cannot create files in \(directory): \(Self.words(code))"
        case .linksToDirectory: "it links to a directory"
        case .isSocket: "it is a socket"
        case .noTemporaryName(let directory): "no free temporary name in \(directory)"
        case .nulInName: "the name holds a NUL byte, which no file name can"
        case .standardInputClosed: "it is closed"
        case .noReader(let why): "no reader on the FIFO; stopped waiting for one (\(why)), nothing was written"
        case .readerStalled(let why): "the FIFO's reader stopped reading; stopped waiting for it (\(why)), the data is cut short"
        case .system(let code): Self.words(code)
        }
    }

    /// The system's words for `code` ("Permission denied", "No space left on device").
    public static func words(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The problem `code` means for an operation on `path`: ENAMETOOLONG measured,
    /// ENOENT as "no such file", the rest in the system's words.
    public init(errno code: Int32, path: FilePath) {
        switch code {
        case ENOENT: self = .noSuchFile
        case EISDIR: self = .isDirectory
        case ENAMETOOLONG: self = Self.tooLong(path)
        default: self = .system(code)
        }
    }

    /// Which part of `path` is too long, and what the file system allows there.
    static func tooLong(_ path: FilePath) -> FileProblem {
        let pathMax = Int(PATH_MAX)
        if path.bytes.count >= pathMax { return .pathTooLong(bytes: path.bytes.count, allowed: pathMax - 1) }
        let components = path.components
        guard let longest = components.indices.max(by: { components[$0].count < components[$1].count }) else { return .system(ENAMETOOLONG) }
        // The limit of the directory the long name would be in, where that exists.
        let parent = path.bytes.first == FilePath.slash ? "/" : "."
        var directory = FilePath(bytes: Array(parent.utf8))
        for component in components[..<longest] { directory = directory.appending(FilePath(bytes: component)) }
        let allowed = (try? directory.withCString { pathconf($0, Int32(_PC_NAME_MAX)) }).flatMap { $0 > 0 ? Int($0) : nil } ?? Int(NAME_MAX)
        return .nameTooLong(bytes: components[longest].count, allowed: allowed, isLast: longest == components.count - 1)
    }

    /// "64 KiB (65536 bytes)", "16 MiB (16777216 bytes)", "100 bytes".
    public static func bytes(_ count: Int) -> String {
        if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB (\(count) bytes)" }
        if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB (\(count) bytes)" }
        return "\(count) bytes"
    }
}

/// What is at a path, for messages.
public enum FileKind: Sendable, Equatable, CustomStringConvertible {
    case regular, directory, fifo, characterDevice, blockDevice, socket, symbolicLink, other

    public init(mode: mode_t) {
        self = switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFSOCK: .socket
        case S_IFLNK: .symbolicLink
        default: .other
        }
    }

    /// "a FIFO", "a character device", …
    public var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .other: "not a file"
        }
    }
}

/// A problem with the file it happened to: what `FileReader` and `FileWriter` throw.
/// `path` nil is standard input.
public struct FileAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Access: Sendable, Equatable { case read, write }
    public var access: Access
    public var path: FilePath?
    public var problem: FileProblem

    public init(_ access: Access, _ path: FilePath?, _ problem: FileProblem) {
        self.access = access
        self.path = path
        self.problem = problem
    }

    /// "cannot write /dev/full: No space left on device".
    public var description: String {
        "cannot \(access == .read ? "read" : "write") \(path.map(\.description) ?? "standard input"): \(problem)"
    }
}
