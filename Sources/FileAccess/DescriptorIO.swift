import Glibc

/// Whole-buffer reads and writes on a descriptor: retried on EINTR, and on EAGAIN
/// (a descriptor inherited in non-blocking mode) after waiting for it to be ready.
/// Failures are the errno.
public enum DescriptorIO {
    /// Asked while a write waits for its descriptor to take more (a FIFO whose reader
    /// is slow, or stopped reading): a reason to stop waiting (a signal came), or nil
    /// to go on. Asked every `giveUpCheckMilliseconds`.
    public typealias GiveUp = () -> String?
    public static let giveUpCheckMilliseconds: Int32 = 20

    /// Why a write that may give up did not complete.
    public enum WriteFailure: Error, Sendable, Equatable {
        case system(SystemError)
        /// `GiveUp` said to stop, with its reason; some of the bytes may have been written.
        case gaveUp(String)
    }

    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemError) {
        do { try writeAll(bytes, to: descriptor, giveUp: nil) } catch {
            switch error {
            case .system(let e): throw e
            case .gaveUp: throw SystemError(code: ECANCELED)  // not reached: nothing to give up by
            }
        }
    }

    /// As `writeAll(_:to:)`, and a wait for the descriptor to take more ends when
    /// `giveUp` gives a reason.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, giveUp: GiveUp?) throws(WriteFailure) {
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
                guard let giveUp else {
                    wait(for: descriptor, events: Int16(POLLOUT))
                    continue
                }
                if let why = giveUp() { throw .gaveUp(why) }
                wait(for: descriptor, events: Int16(POLLOUT), milliseconds: giveUpCheckMilliseconds)
            } else {
                throw .system(SystemError(code: n < 0 ? errno : EIO))
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

    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32, giveUp: GiveUp?) throws(WriteFailure) {
        var failure: WriteFailure?
        bytes.withUnsafeBytes { buffer in
            do throws(WriteFailure) { try writeAll(buffer, to: descriptor, giveUp: giveUp) } catch { failure = error }
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
    public static func withoutSIGPIPE<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R {
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

    /// Until the descriptor is ready, or `milliseconds` passed (-1: no bound).
    private static func wait(for descriptor: Int32, events: Int16, milliseconds: Int32 = -1) {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        _ = poll(&request, 1, milliseconds)
    }
}

/// An errno from a system call, kept as the number.
public struct SystemError: Error, Sendable, Equatable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
    /// The system's words for it.
    public var message: String { FileProblem.words(code) }
}
