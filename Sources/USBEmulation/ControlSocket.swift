import EmulationControl
import Foundation
import Glibc
import Synchronization

/// The control socket: a Unix stream socket where each line is a command of the
/// control protocol (`ControlCommand`) and gets its reply lines; a client may send
/// several commands.
///
/// One thread serves it, with poll() over at most `maxConnections` connections; more
/// wait in the listen backlog (and a connect beyond the backlog is refused or waits,
/// as the client chose). A line is at most `lineLimit` bytes (a connection never holds
/// more than that unread: a longer line is refused and the connection closed). A
/// connection that sends no whole command for `idleSeconds` is closed, and while all
/// slots are taken and another client waits, the one quiet longest gives way after
/// `yieldSeconds`: neither a flood nor silent clients can take the emulation's memory,
/// threads or attention, and an interactive client with no one waiting keeps its
/// connection.
///
/// The socket file: by default in a directory of its own (mkdtemp, mode 0700), both
/// removed at the end. At a path the user gave, a socket nobody answers on (left by
/// an emulation that was killed) is replaced, and anything else is refused: the
/// emulation never deletes what is not its own. At the end the file is removed only
/// if it is still the socket this emulation made.
final class ControlServer: Sendable {
    /// Where COMMAND finds the socket.
    static let environmentVariable = ControlClient.environmentVariable
    /// The longest command line, in bytes without its newline.
    static let lineLimit = 4096
    /// Connections served at once.
    static let maxConnections = 8
    /// How long a connection may go without sending a whole command line.
    static let idleSeconds = 60
    /// How long a connection keeps its slot without a command while every slot is
    /// taken and another client waits: the quietest one then gives way.
    static let yieldSeconds = 1.0
    /// How long a reply may wait for a client that does not read.
    static let sendTimeoutSeconds = 2

    let path: String
    /// The private directory holding the socket, when the emulation made it.
    private let directory: String?
    private let listener: Int32
    /// Written to wake the serving thread for `stop()`.
    private let wake: (read: Int32, write: Int32)
    /// The socket file's identity, to remove only our own.
    private let identity: (device: UInt, inode: UInt)
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    /// `path`: nil for a private directory of its own.
    init(path given: String?, execute: @escaping @Sendable (String) -> [String]) throws(EmulationError) {
        var directory: String?
        let path: String
        if let given {
            path = given
        } else {
            let base = (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
            var template = Array((base + "/hapbridge-emulate.XXXXXX").utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ b in b.baseAddress.flatMap { mkdtemp($0) } }) else {
                throw .controlSocket("cannot make a private directory for the control socket in \(base): \(String(cString: strerror(errno)))")
            }
            let dir = String(cString: made)
            directory = dir
            path = dir + "/control"
        }
        func cleanUp() { if let directory { rmdir(directory) } }
        guard var address = UnixAddress(path) else {
            cleanUp()
            throw .controlSocket("control socket \(path): too long for a socket path (\(path.utf8.count) bytes, at most \(UnixAddress.capacity - 1))")
        }
        if given != nil {
            do throws(EmulationError) { try Self.clearStale(path) } catch {
                cleanUp()
                throw error
            }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            cleanUp()
            throw .controlSocket("cannot create the control socket: \(String(cString: strerror(errno)))")
        }
        // Nobody else may connect while a given path's directory is open to them; the
        // default directory is 0700 anyway.
        let mask = umask(0o077)
        let bound = address.bind(fd)
        let bindErrno = errno
        umask(mask)
        var info = stat()
        guard bound == 0, lstat(path, &info) == 0, listen(fd, 16) == 0 else {
            let why = String(cString: strerror(bound == 0 ? errno : bindErrno))
            close(fd)
            cleanUp()
            throw .controlSocket("cannot listen on \(path): \(why)")
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0, fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC) == 0 else {
            close(fd)
            unlink(path)
            cleanUp()
            throw .controlSocket("cannot make the control socket's wake-up pipe: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.directory = directory
        listener = fd
        wake = (pipeEnds[0], pipeEnds[1])
        identity = (UInt(info.st_dev), UInt(info.st_ino))
        let wakeRead = pipeEnds[0]
        let thread = Thread { [self] in
            var loop = ControlLoop(listener: fd, wake: wakeRead, execute: execute)
            loop.run()
            finished.signal()
        }
        thread.name = "hapbridge emulate control"
        thread.start()
    }

    /// At a path the user gave: nothing there, or a socket nobody answers on (removed).
    private static func clearStale(_ path: String) throws(EmulationError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw .controlSocket("control socket \(path): \(String(cString: strerror(errno)))") }
            return
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw .controlSocket("control socket \(path): what is there is not a socket; not replaced (remove it or give another path)")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(probe) }
        if var address = UnixAddress(path), address.connect(probe) == 0 {
            throw .controlSocket("control socket \(path): another program is answering on it; not replaced")
        }
        unlink(path)
    }

    func stop() {
        guard !stopped.withLock({ s in defer { s = true }; return s }) else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        finished.wait()
        close(listener)
        close(wake.read)
        close(wake.write)
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, UInt(info.st_dev) == identity.device, UInt(info.st_ino) == identity.inode {
            unlink(path)
        }
        if let directory { rmdir(directory) }
    }
}

/// The serving thread's loop (see `ControlServer`).
private struct ControlLoop {
    struct Connection {
        var fd: Int32
        var buffer: [UInt8] = []
        /// When it was accepted or last sent a whole line (CLOCK_MONOTONIC, ms).
        var lastLine: Int64
    }

    let listener: Int32
    let wake: Int32
    let execute: @Sendable (String) -> [String]
    var connections: [Connection] = []
    /// Every slot is taken and a connection waits in the backlog.
    var someoneWaits = false

    init(listener: Int32, wake: Int32, execute: @escaping @Sendable (String) -> [String]) {
        self.listener = listener
        self.wake = wake
        self.execute = execute
    }

    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    static let idleMilliseconds = Int64(ControlServer.idleSeconds) * 1000
    static let yieldMilliseconds = Int64(ControlServer.yieldSeconds * 1000)

    mutating func run() {
        defer { connections.forEach { close($0.fd) } }
        while true {
            let full = connections.count >= ControlServer.maxConnections
            // Full and known to have someone waiting: the listener stays ready, so it
            // is left out until the longest-quiet connection has had its time.
            let watchListener = !(full && someoneWaits)
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if watchListener { fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
            let first = fds.count
            fds += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let oldest = connections.map(\.lastLine).min()
            var wakeAt = oldest.map { $0 + Self.idleMilliseconds }
            if full && someoneWaits, let oldest { wakeAt = min(wakeAt ?? .max, oldest + Self.yieldMilliseconds) }
            let timeout = wakeAt.map { Int32(clamping: max(0, $0 - Self.now())) } ?? -1
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[0].revents != 0 { return }  // stop()
            // Connections first (by index, before any is added or closed), then accept.
            var closing: Set<Int32> = []
            for (i, p) in fds[first...].enumerated() where p.revents != 0 {
                if !Self.serve(&connections[i], execute) { closing.insert(connections[i].fd) }
            }
            let now = Self.now()
            for c in connections where !closing.contains(c.fd) && now - c.lastLine >= Self.idleMilliseconds {
                writeAll(c.fd, "error no command for \(ControlServer.idleSeconds) s: closing\n")
                closing.insert(c.fd)
            }
            if watchListener, fds[1].revents != 0, full, closing.isEmpty { someoneWaits = true }
            if someoneWaits, closing.isEmpty,
                let quiet = connections.min(by: { $0.lastLine < $1.lastLine }), now - quiet.lastLine >= Self.yieldMilliseconds
            {
                writeAll(quiet.fd, "error quiet for \(ControlServer.yieldSeconds) s while another client waits: closing\n")
                closing.insert(quiet.fd)
            }
            for fd in closing { close(fd) }
            connections.removeAll { closing.contains($0.fd) }
            if connections.count < ControlServer.maxConnections && (someoneWaits || (watchListener && fds[1].revents != 0)) {
                someoneWaits = false
                accept()
            }
        }
    }

    mutating func accept() {
        // Non-blocking: the client that made the listener ready may have gone already.
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) == 1 else { return }
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // COMMAND and the boards' harnesses must not inherit it
        var timeout = timeval(tv_sec: ControlServer.sendTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        connections.append(Connection(fd: fd, lastLine: Self.now()))
    }

    /// Reads what arrived and answers each whole line; false when the connection ends.
    static func serve(_ c: inout Connection, _ execute: @Sendable (String) -> [String]) -> Bool {
        let limit = ControlServer.lineLimit
        // Never more than a line and its newline held.
        let room = limit + 1 - c.buffer.count
        var chunk = [UInt8](repeating: 0, count: room)
        let n = chunk.withUnsafeMutableBytes { read(c.fd, $0.baseAddress, $0.count) }
        if n < 0 { return errno == EINTR || errno == EAGAIN }
        let atEnd = n == 0
        c.buffer += chunk[..<max(0, n)]
        while let nl = c.buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(c.buffer[..<nl])
            c.buffer.removeSubrange(...nl)
            c.lastLine = ControlLoop.now()
            if !answer(line, on: c.fd, execute) { return false }
        }
        if c.buffer.count > limit {
            writeAll(c.fd, "error line too long (more than \(limit) bytes without a newline; the limit is \(limit)): closing\n")
            return false
        }
        if atEnd, !c.buffer.isEmpty {
            // A last line without its newline is still a command.
            let line = c.buffer
            c.buffer = []
            _ = answer(line, on: c.fd, execute)
        }
        return !atEnd
    }

    static func answer(_ bytes: [UInt8], on fd: Int32, _ execute: @Sendable (String) -> [String]) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return true }
        return writeAll(fd, execute(line).map { $0 + "\n" }.joined())
    }
}
