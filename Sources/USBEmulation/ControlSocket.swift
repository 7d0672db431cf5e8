import Foundation
import Glibc
import Synchronization

/// The control socket: a Unix stream socket where each line is a command of the
/// control protocol (`ControlCommand`) and gets its reply lines. Any number of
/// clients, each on its own thread; a client may send several commands.
final class ControlServer: Sendable {
    /// Where COMMAND finds the socket.
    static let environmentVariable = "HAPBRIDGE_EMULATE_CONTROL"

    let path: String
    private let listener: Int32
    private let stopped = Mutex(false)

    init(path: String, execute: @escaping @Sendable (String) -> [String]) throws(EmulationError) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .controlSocket("cannot create the control socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        guard var address = UnixAddress(path), address.bind(fd) == 0, listen(fd, 8) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw .controlSocket("cannot listen on \(path): \(why)")
        }
        self.path = path
        listener = fd
        let thread = Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return  // closed by stop()
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // COMMAND must not inherit it
                guard !stopped.withLock({ $0 }) else {
                    close(client)
                    return
                }
                let serve = Thread { Self.serve(client, execute) }
                serve.start()
            }
        }
        thread.name = "hapbridge emulate control"
        thread.start()
    }

    private static func serve(_ fd: Int32, _ execute: @Sendable (String) -> [String]) {
        defer { close(fd) }
        var reader = LineReader(fd: fd)
        while let line = reader.next() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard writeAll(fd, execute(trimmed).map { $0 + "\n" }.joined()) else { return }
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }
}

/// `hapbridge emulate control`: one command, its reply lines; true for "ok".
public enum ControlClient {
    public static func send(_ command: String, to path: String) throws(EmulationError) -> (ok: Bool, lines: [String]) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .controlSocket("cannot create a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard var address = UnixAddress(path), address.connect(fd) == 0 else {
            throw .controlSocket("cannot connect to the emulation's control socket \(path): \(String(cString: strerror(errno)))")
        }
        guard writeAll(fd, command + "\n") else { throw .controlSocket("cannot send to \(path)") }
        shutdown(fd, Int32(SHUT_WR))
        var reader = LineReader(fd: fd)
        var lines: [String] = []
        while let line = reader.next() {
            lines.append(line)
            if line == "ok" || line.hasPrefix("ok ") { return (true, lines) }
            if line.hasPrefix("error") { return (false, lines) }
        }
        throw .controlSocket("the emulation closed the control socket without an answer")
    }
}

/// sockaddr_un for a path (nil when it does not fit the 108 bytes Linux allows).
private struct UnixAddress {
    var storage = sockaddr_un()

    init?(_ path: String) {
        storage.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &storage.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
            p[bytes.count] = 0
        }
    }

    mutating func bind(_ fd: Int32) -> Int32 {
        withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    mutating func connect(_ fd: Int32) -> Int32 {
        withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Lines from a file descriptor, without their newline; nil at end of input.
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var atEnd = false

    init(fd: Int32) { self.fd = fd }

    mutating func next() -> String? {
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
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { atEnd = true } else { buffer += chunk[..<n] }
        }
    }
}

/// Writes all of `text`; false when the other end went away (no SIGPIPE).
func writeAll(_ fd: Int32, _ text: String) -> Bool {
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
