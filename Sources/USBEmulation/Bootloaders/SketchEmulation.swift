import AVRBootloaders
import Foundation
import Glibc
import Synchronization

/// A 32U4 board running an Arduino sketch (a Leonardo's application, 2341:8036, or a
/// Pro Micro's as it comes from the shop, 1b4f:9206: `BootloaderIdentity.sketches`)
/// with the Arduino core's CDC-ACM port: what `hapbridge flash` meets on a board that
/// does not run hapbridge firmware. The one thing the sketch does here is what the
/// Arduino core does for every sketch: when its port is set to 1200 baud and closed
/// (DTR dropped), it resets into Caterina (`touched`).
///
/// The tty is pty-backed as `CaterinaEmulation`'s. A pty carries no modem lines, but
/// the master reads the line settings the client made (tcgetattr on a pty master is
/// its slave's) and sees the slave closed (POLLHUP): the speed at the close is the touch.
public final class SketchEmulation: Sendable {
    public let identity: BootloaderIdentity

    public let placement: CaterinaEmulation.Placement
    let record: USBDeviceRecord
    private let testbed: Testbed
    private let master: Int32
    private let wake: (read: Int32, write: Int32)
    private let stopped = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)
    private let touched: @Sendable () -> Void

    /// Plugs the board in (the bus's root hub must be there) and watches its port.
    public init(
        testbed: Testbed, identity: BootloaderIdentity = .leonardoSketch, placement: CaterinaEmulation.Placement, addsRootHub: Bool,
        touched: @escaping @Sendable () -> Void
    ) throws(EmulationError) {
        let record = try CaterinaEmulation.deviceRecord(identity, placement: placement)
        if addsRootHub { try testbed.add(record: USBRootHubRecord(bus: placement.bus).text) }
        try testbed.add(record: CaterinaEmulation.withDriver(record.text))
        try testbed.add(record: CaterinaEmulation.ttyRecord(device: record, identity: identity, tty: placement.tty))
        guard let master = testbed.ptyMaster(node: placement.node) else { throw .testbed("umockdev made no pty for \(placement.node)") }
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { throw .testbed("cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.identity = identity
        self.placement = placement
        self.record = record
        self.testbed = testbed
        self.master = master
        self.wake = (pipe[0], pipe[1])
        self.touched = touched
        let thread = Thread { [self] in
            watch()
            finished.signal()
        }
        thread.name = "sketch"
        thread.start()
    }

    /// Stops watching and takes the board off the bus (children first).
    public func unplug() {
        let first = stopped.withLock { s in
            defer { s = true }
            return !s
        }
        guard first else { return }
        var one: UInt8 = 1
        _ = Glibc.write(wake.write, &one, 1)
        finished.wait()
        Glibc.close(wake.read)
        Glibc.close(wake.write)
        let tty = record.interfaceSyspaths[0] + "/tty/" + placement.tty
        for path in [tty] + record.interfaceSyspaths.reversed() + [record.syspath] {
            testbed.uevent(path, "remove")
            testbed.remove(path)
        }
    }

    deinit { unplug() }

    /// What the client writes is read and dropped (the sketch answers nothing); the
    /// port closed at 1200 baud is the touch (reported once).
    private func watch() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 10) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLIN) != 0 {
                _ = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            }
            // The touch is over in a moment (open, set 1200, close): what stays is the
            // line setting on a closed port, so that is what is looked for.
            guard fds[0].revents & Int16(POLLHUP) != 0 else { continue }
            var settings = termios()
            if tcgetattr(master, &settings) == 0, cfgetospeed(&settings) == speed_t(B1200) {
                touched()
                return
            }
            // Closed, not touched: wait for the next client without spinning.
            var wakeOnly = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if poll(&wakeOnly, 1, 10) > 0 { return }
        }
    }
}
