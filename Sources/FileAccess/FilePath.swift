/// A path as the system takes it: bytes, not text. Made from a decoded argument
/// (`ArgumentText`) it is the bytes the user typed, whatever their encoding; shown
/// (`description`) with the bytes that are not UTF-8 as `\xE9`.
public struct FilePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The path a string stands for: its UTF-8, with `ArgumentText`'s escapes turned
    /// back into the bytes they stand for.
    public init(_ text: String) { bytes = ArgumentText.bytes(of: text) }

    public init(stringLiteral value: String) { self.init(value) }

    /// For messages: `x\xE9.ahap`.
    public var description: String { ArgumentText.display(bytes) }

    /// The path as a string that converts back exactly (`init(_:)`), for APIs that
    /// keep paths as strings.
    public var string: String { ArgumentText.string(from: bytes) }

    /// The directory that holds the last component: "." for a bare name, "/" at the root.
    public var directory: FilePath {
        guard let slash = bytes.lastIndex(of: Self.slash) else { return "." }
        return slash == 0 ? "/" : FilePath(bytes: Array(bytes[..<slash]))
    }

    /// The last component (the whole path when it has no slash).
    public var lastComponent: FilePath {
        let trimmed = bytes.last == Self.slash ? Array(bytes.dropLast()) : bytes
        guard let slash = trimmed.lastIndex(of: Self.slash) else { return FilePath(bytes: trimmed) }
        return FilePath(bytes: Array(trimmed[(slash + 1)...]))
    }

    /// `self/component`.
    public func appending(_ component: FilePath) -> FilePath {
        FilePath(bytes: bytes + (bytes.last == Self.slash ? [] : [Self.slash]) + component.bytes)
    }

    /// The components between slashes, empty ones left out.
    var components: [[UInt8]] { bytes.split(separator: Self.slash).map(Array.init) }

    static let slash = UInt8(ascii: "/")

    /// Calls `body` with the path as a C string; a path holding a NUL byte (which no
    /// system call can take) is refused rather than cut short at the NUL.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) -> R) throws(FileProblem) -> R {
        guard !bytes.isEmpty else { throw .system(ENOENT) }
        guard !bytes.contains(0) else { throw .nulInName }
        let cString = bytes.map { CChar(bitPattern: $0) } + [0]
        return body(cString)
    }
}

import Glibc

extension FilePath {
    /// What is at the path, links followed; nil when nothing is (or it cannot be seen).
    public var kind: FileKind? {
        var info = stat()
        guard (try? withCString({ stat($0, &info) })) == 0 else { return nil }
        return FileKind(mode: info.st_mode)
    }
}
