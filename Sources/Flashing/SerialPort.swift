import Glibc

/// A serial port (a bootloader's /dev/ttyACM*) in raw mode: no echo, no line editing,
/// no character translation, 8N1. Every read is bounded: `read(count:timeout:)` polls
/// until the bytes are there or the deadline passes, so a bootloader that stops
/// answering is a timeout, never a hang. The baud rate is set to 57600 (what avrdude
/// uses; a CDC-ACM bootloader ignores it, but 1200 would be the reset touch).
final class SerialPort {
    let path: String
    private let descriptor: Int32

    init(path: String) throws(FlashError) {
        self.path = path
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let hint = code == EACCES ? " (install Hardware/udev/60-hapbridge.rules, or join the group that owns \(path))" : ""
            throw FlashError(.noBootloader, "cannot open \(path): \(String(cString: strerror(code)))\(hint)")
        }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw FlashError(.noBootloader, "\(path) is not a serial port: \(String(cString: strerror(code)))")
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        cfsetispeed(&settings, speed_t(B57600))
        cfsetospeed(&settings, speed_t(B57600))
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw FlashError(.noBootloader, "cannot set \(path) to raw 57600 8N1: \(String(cString: strerror(code)))")
        }
        // Whatever a previous client left unread is not an answer to us.
        tcflush(fd, TCIOFLUSH)
        descriptor = fd
    }

    deinit { Glibc.close(descriptor) }

    func write(_ bytes: [UInt8], timeout: Duration) throws(FlashError) {
        let deadline = ContinuousClock.now + timeout
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + sent, bytes.count - sent) }
            if n > 0 {
                sent += n
                continue
            }
            let code = errno
            guard n < 0, code == EAGAIN || code == EINTR else { throw gone("writing", code) }
            try wait(for: Int16(POLLOUT), until: deadline, doing: "writing")
        }
    }

    /// Exactly `count` bytes, or a timeout naming what was awaited.
    func read(count: Int, timeout: Duration, awaiting what: @autoclosure () -> String) throws(FlashError) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + got, count - got) }
            if n > 0 {
                got += n
                continue
            }
            let code = errno
            if n == 0 { throw FlashError(.gone, "\(path) closed while waiting for \(what()) (the board was unplugged or reset)") }
            guard code == EAGAIN || code == EINTR else { throw gone("reading", code) }
            do { try wait(for: Int16(POLLIN), until: deadline, doing: "reading") } catch {
                if error.kind == .protocolError {
                    throw FlashError(.protocolError, "\(path): no answer to \(what()) within \(timeout) (got \(got) of \(count) bytes)")
                }
                throw error
            }
        }
        return out
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, doing: String) throws(FlashError) {
        let left = deadline - .now
        guard left > .zero else { throw FlashError(.protocolError, "\(path): timed out \(doing)") }
        let ms = Int32(min(Double(Int32.max), (Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15).rounded(.up)))
        var fd = pollfd(fd: descriptor, events: events, revents: 0)
        let r = poll(&fd, 1, max(1, ms))
        if r < 0, errno != EINTR { throw gone(doing, errno) }
        if r > 0, fd.revents & Int16(POLLERR | POLLNVAL) != 0 || (fd.revents & Int16(POLLHUP) != 0 && fd.revents & events == 0) {
            throw FlashError(.gone, "\(path) hung up while \(doing) (the board was unplugged or reset)")
        }
    }

    private func gone(_ doing: String, _ code: Int32) -> FlashError {
        FlashError(code == EIO || code == ENXIO || code == ENODEV ? .gone : .protocolError, "\(path): \(doing) failed: \(String(cString: strerror(code)))")
    }
}

extension SerialPort {
    /// The 1200-baud touch: the port opened at 1200 baud and closed with DTR dropped.
    /// An Arduino-core sketch on a 32U4 (Leonardo, Micro, Pro Micro) watches its
    /// CDC-ACM line coding for exactly that and resets into Caterina, which then waits
    /// 8 s on a new tty. Modem-control failures are not errors: a port without them
    /// (a pty) still gets the line coding, and closing with HUPCL drops DTR anyway.
    static func touch1200(path: String) throws(FlashError) {
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let hint = code == EACCES ? " (install Hardware/udev/60-hapbridge.rules, or join the group that owns \(path))" : ""
            throw FlashError(.noBootloader, "cannot open \(path) for the 1200-baud reset: \(String(cString: strerror(code)))\(hint)")
        }
        defer { Glibc.close(fd) }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            throw FlashError(.noBootloader, "\(path) is not a serial port: \(String(cString: strerror(errno)))")
        }
        cfsetispeed(&settings, speed_t(B1200))
        cfsetospeed(&settings, speed_t(B1200))
        settings.c_cflag |= tcflag_t(HUPCL)
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
            throw FlashError(.noBootloader, "cannot set \(path) to 1200 baud: \(String(cString: strerror(errno)))")
        }
        var dtr = Int32(TIOCM_DTR)
        _ = ioctl(fd, UInt(TIOCMBIC), &dtr)
    }
}

