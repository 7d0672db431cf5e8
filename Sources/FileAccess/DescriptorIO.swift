import Glibc

/// Whole-buffer reads and writes on a descriptor: retried on EINTR, and on EAGAIN
/// (a descriptor inherited in non-blocking mode) after waiting for it to be ready.
/// Failures are the errno.
public enum DescriptorIO {
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemError) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = write(descriptor, next, left)
            if n > 0 {
                next += n
                left -= n
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                wait(for: descriptor, events: Int16(POLLOUT))
            } else {
                throw SystemError(code: n < 0 ? errno : EIO)
            }
        }
    }

    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try writeAll(buffer, to: descriptor) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    public static func writeAll(_ text: String, to descriptor: Int32) throws(SystemError) {
        var text = text
        var failure: SystemError?
        text.withUTF8 { buffer in
            do throws(SystemError) { try writeAll(UnsafeRawBufferPointer(buffer), to: descriptor) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Runs `body` with SIGPIPE held back on this thread, so a write to a FIFO whose
    /// reader has gone fails with EPIPE (a message, a status) instead of killing the
    /// process; a SIGPIPE that write raised is taken off again, one pending before is left.
    public static func withoutSIGPIPE<R>(_ body: () throws(SystemError) -> R) throws(SystemError) -> R {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        var pending = sigset_t()
        sigpending(&pending)
        let wasPending = sigismember(&pending, SIGPIPE) == 1
        defer {
            if !wasPending {
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    var now = timespec()
                    _ = sigtimedwait(&pipeSignal, nil, &now)
                }
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }

    /// The read size: whole chunks, because some files refuse odd-sized reads
    /// (/proc/self/pagemap takes multiples of 8).
    public static let chunk = 1 << 16

    /// Reads until end of file or until more than `limit` bytes have come (at most
    /// one chunk more). The caller tells "over the limit" by the count.
    public static func read(_ descriptor: Int32, upTo limit: Int) throws(SystemError) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while out.count <= limit {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, chunk) }
            if n > 0 {
                out += buffer[0..<n]
            } else if n == 0 {
                break
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                wait(for: descriptor, events: Int16(POLLIN))
            } else {
                throw SystemError(code: errno)
            }
        }
        return out
    }

    private static func wait(for descriptor: Int32, events: Int16) {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        _ = poll(&request, 1, -1)
    }
}

/// An errno from a system call, kept as the number.
public struct SystemError: Error, Sendable, Equatable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
    /// The system's words for it.
    public var message: String { FileProblem.words(code) }
}
