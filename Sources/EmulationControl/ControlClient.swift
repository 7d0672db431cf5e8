import Glibc

// The client side of `hapbridge emulate bridge`'s control socket (the server and the
// commands are USBEmulation's `ControlServer` and `ControlCommand`), in a module of its
// own so a COMMAND run under the emulation (`hapbridge run`'s unplug and replug steps,
// `hapbridge emulate control`) reaches it without linking the emulation (umockdev).
// The socket helpers the server shares are `package`.

/// `hapbridge emulate control`: one command, its reply lines; true for "ok".
public enum ControlClient {
    /// Where COMMAND finds the socket (set by `hapbridge emulate bridge` for it).
    public static let environmentVariable = "HAPBRIDGE_EMULATE_CONTROL"

    /// Why a command got no answer (the emulation's answer "error …" is a reply, not this).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The most a reply may hold (a `list` of 126 boards is about 10 KiB).
    static let replyLimit = 1 << 20

    public static func send(_ command: String, to path: String) throws(Failure) -> (ok: Bool, lines: [String]) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("cannot create a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard var address = UnixAddress(path) else {
            throw Failure("control socket \(path): too long for a socket path (\(path.utf8.count) bytes, at most \(UnixAddress.capacity - 1))")
        }
        guard address.connect(fd) == 0 else {
            throw Failure("cannot connect to the emulation's control socket \(path): \(String(cString: strerror(errno)))")
        }
        guard writeAll(fd, command + "\n") else { throw Failure("cannot send to \(path)") }
        shutdown(fd, Int32(SHUT_WR))
        var reader = LineReader(fd: fd, limit: replyLimit)
        var lines: [String] = []
        while let line = reader.next() {
            lines.append(line)
            if line == "ok" || line.hasPrefix("ok ") { return (true, lines) }
            if line.hasPrefix("error") { return (false, lines) }
        }
        throw Failure("the emulation closed the control socket without an answer")
    }
}

/// sockaddr_un for a path (nil when it does not fit the 108 bytes Linux allows).
package struct UnixAddress {
    package var storage = sockaddr_un()
    package static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    package init?(_ path: String) {
        storage.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < Self.capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &storage.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
            p[bytes.count] = 0
        }
    }

    package mutating func bind(_ fd: Int32) -> Int32 {
        withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    package mutating func connect(_ fd: Int32) -> Int32 {
        withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Lines from a file descriptor, without their newline; nil at end of input (or
/// once `limit` bytes have been read in all, for a reader that must stay bounded).
package struct LineReader {
    let fd: Int32
    let limit: Int
    private var buffer: [UInt8] = []
    private var total = 0
    private var atEnd = false

    package init(fd: Int32, limit: Int = .max) {
        self.fd = fd
        self.limit = limit
    }

    package mutating func next() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return String(decoding: buffer, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: min(4096, limit - total))
            let n = chunk.isEmpty ? 0 : chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                atEnd = true
            } else {
                buffer += chunk[..<n]
                total += n
            }
        }
    }
}

/// Writes all of `text`; false when the other end went away or stopped reading for
/// the socket's send timeout (no SIGPIPE).
@discardableResult
package func writeAll(_ fd: Int32, _ text: String) -> Bool {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += n
    }
    return true
}
