import Foundation

/// An errno from a read or write, kept as the number.
struct POSIXFailure: Error {
    var code: Int32
    var message: String { String(cString: strerror(code)) }
}

/// Whole-buffer reads and writes on a descriptor: retried on EINTR, and on EAGAIN
/// (a descriptor inherited in non-blocking mode) after waiting for it to be ready.
enum FileDescriptorIO {
    static func writeAll(_ text: String, to descriptor: Int32) throws(POSIXFailure) {
        var text = text
        var failure: POSIXFailure?
        text.withUTF8 { buffer in
            do throws(POSIXFailure) { try writeAll(buffer, to: descriptor) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) throws(POSIXFailure) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Foundation.write(descriptor, next, left)
            if n > 0 {
                next += n
                left -= n
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                wait(for: descriptor, events: Int16(POLLOUT))
            } else {
                throw POSIXFailure(code: n < 0 ? errno : EIO)
            }
        }
    }

    /// Reads until end of file or until more than `limit` bytes have come (at most
    /// one chunk more: whole chunks, because some files refuse odd-sized reads, e.g.
    /// /proc/self/pagemap takes multiples of 8). The caller tells "over the limit"
    /// by the count.
    static func read(_ descriptor: Int32, upTo limit: Int) throws(POSIXFailure) -> [UInt8] {
        var out: [UInt8] = []
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        while out.count <= limit {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, chunk) }
            if n > 0 {
                out += buffer[0..<n]
            } else if n == 0 {
                break
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                wait(for: descriptor, events: Int16(POLLIN))
            } else {
                throw POSIXFailure(code: errno)
            }
        }
        return out
    }

    private static func wait(for descriptor: Int32, events: Int16) {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        _ = poll(&request, 1, -1)
    }
}
