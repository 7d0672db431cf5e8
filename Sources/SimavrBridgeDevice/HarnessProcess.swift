import Foundation
import DeviceInterface

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `sim-harness --serve` child and its line protocol (Firmware/sim/serve.c):
/// one command line out, lines back until the reply. Blocking by design: the
/// simulation only moves while the host waits for it.
///
/// stdin, stdout and stderr share one socket pair rather than pipes: a write to a
/// dead child then fails with EPIPE (MSG_NOSIGNAL) instead of a SIGPIPE that would
/// kill the host, and whatever the harness prints to stderr (simavr's loader, a
/// failed ELF load) arrives in order with the protocol lines, for error messages.
final class HarnessProcess {
    private let process = Process()
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    /// The last lines that were not protocol lines, for error messages.
    private(set) var diagnostics: [String] = []
    /// Wall-clock bound on one reply: a harness that hangs must not hang the host.
    var replyTimeoutSeconds: Int32 = 120

    init(executable: String, arguments: [String]) throws(DeviceError) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, stream, 0, &fds) == 0 else { throw .io("socketpair failed: errno \(errno)") }
        // Neither end may leak into other children (an inherited copy of ours would
        // keep the socket open after this child exits, hiding its EOF).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let child = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = child
        process.standardOutput = child
        process.standardError = child
        do { try process.run() } catch {
            closeDescriptor(fds[0])
            closeDescriptor(fds[1])
            throw .io("cannot start \(executable): \(error)")
        }
        closeDescriptor(fds[1])
        socket = fds[0]
    }

    var isRunning: Bool { process.isRunning }

    func writeLine(_ text: String) throws(DeviceError) {
        guard socket >= 0 else { throw .io("sim-harness is closed") }
        let bytes = Array((text + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { sendNoSignal(socket, $0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw died("writing to it failed (errno \(errno))", exiting: true)
            }
            off += n
        }
    }

    /// The next line, without its newline.
    func readLine() throws(DeviceError) -> String {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            guard socket >= 0 else { throw .io("sim-harness is closed") }
            var p = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, replyTimeoutSeconds * 1000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw died("no reply within \(replyTimeoutSeconds) s", exiting: false) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw died("it closed its output", exiting: true) }
            buffer += chunk[..<n]
        }
    }

    func note(_ line: String) {
        diagnostics.append(line)
        if diagnostics.count > 8 { diagnostics.removeFirst() }
    }

    /// An error naming what failed, the exit status if the child is gone, and its
    /// last words.
    func died(_ what: String, exiting: Bool) -> DeviceError {
        var text = "sim-harness: \(what)"
        if exiting {
            // It closed its end, so it is on its way out: give it a second.
            for _ in 0..<200 where process.isRunning { usleep(5000) }
        }
        if !process.isRunning { text += " (exit status \(process.terminationStatus))" }
        if !diagnostics.isEmpty { text += "; it said: " + diagnostics.joined(separator: " | ") }
        return .io(text)
    }

    /// Asks the harness to quit, then makes sure it is gone. Idempotent.
    func close() {
        guard socket >= 0 else { return }
        if process.isRunning {
            replyTimeoutSeconds = 5
            if (try? writeLine("quit")) != nil {
                while let line = try? readLine(), line != "bye" {}
            }
        }
        closeDescriptor(socket)
        socket = -1
        for _ in 0..<200 where process.isRunning { usleep(5000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { close() }
}

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

private func sendNoSignal(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
}
