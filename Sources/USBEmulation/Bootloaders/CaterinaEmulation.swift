import AVRBootloaders
import FileAccess
import FirmwareImage
import Foundation
import Glibc
import Hex
import Synchronization

/// A board waiting in Caterina, plugged into the testbed: the USB device (a Leonardo's
/// bootloader, 2341:0036, unless told otherwise) with its two CDC-ACM interfaces and
/// the tty /dev/ttyACM0 on the first, as cdc_acm shows them, so udev properties,
/// `/sys/class/tty` and a VID:PID search find the port as on a real machine. umockdev
/// backs the node with a pty; the emulation answers on its master end with a
/// `CaterinaBootloader`, on a thread of its own, until it is closed.
///
/// The tty's char device is 4:64, not ttyACM's 166:N: umockdev's preload answers
/// isatty() only for pty-backed nodes of the pty's own majors, and avrdude (termios on
/// the port) fails without it.
public final class CaterinaEmulation: Sendable {
    /// Which board's Caterina (or sketch): its VID:PID and strings (`BootloaderIdentity`).
    public typealias Identity = BootloaderIdentity

    /// Where the board is plugged: `emulate caterina`'s board is on 1-1 at address 2
    /// with /dev/ttyACM0; inside `emulate bridge` a board's bootloader takes its port.
    public struct Placement: Sendable, Equatable {
        public var bus = 1
        public var port = 1
        public var address = 2
        /// The tty's name under /dev ("ttyACM0").
        public var tty = "ttyACM0"
        public init(bus: Int = 1, port: Int = 1, address: Int = 2, tty: String = "ttyACM0") {
            self.bus = bus
            self.port = port
            self.address = address
            self.tty = tty
        }
        public var node: String { "/dev/" + tty }
    }

    /// What the bootloader does of its own accord.
    public enum Event: Sendable, Equatable {
        /// 'E': it left for the application (reported once the client closed the port,
        /// or `exitNoticedMicroseconds` after the answer, as a real board's
        /// re-enumeration reaches the host some milliseconds after its last byte).
        case exited
        /// A fault (`BootloaderFault`) fired; for `.unplug` the board must leave the bus.
        case fault(BootloaderFault)
    }

    public static let node = "/dev/ttyACM0"
    public let placement: Placement
    /// The device as plugged (its syspaths, to take it off the bus again).
    let record: USBDeviceRecord
    private let testbed: Testbed

    private let bootloader: Mutex<CaterinaBootloader>
    private let master: Int32
    /// Written once to stop the server thread.
    private let wake: (read: Int32, write: Int32)
    private let stopped = Mutex(false)
    private let removed = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)
    private let events: @Sendable (Event) -> Void
    static let exitNoticedMicroseconds: Int32 = 200

    /// Plugs the board in and starts answering. `flash`: its contents (bootloader
    /// section included) before the host says anything; `eeprom`: its EEPROM's (nil:
    /// erased).
    public init(
        testbed: Testbed, identity: Identity = .leonardoCaterina, flash: FlashMemory, eeprom: [UInt8]? = nil, placement: Placement = Placement(),
        fault: BootloaderFault? = nil, addsRootHub: Bool = true, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) throws(EmulationError) {
        let record = try Self.deviceRecord(identity, placement: placement)
        // `emulate bridge` has its bus's root hub already.
        if addsRootHub { try testbed.add(record: USBRootHubRecord(bus: placement.bus).text) }
        try testbed.add(record: Self.withDriver(record.text))
        try testbed.add(record: Self.ttyRecord(device: record, identity: identity, tty: placement.tty))
        guard let master = testbed.ptyMaster(node: placement.node) else { throw .testbed("umockdev made no pty for \(placement.node)") }
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { throw .testbed("cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.placement = placement
        self.record = record
        self.testbed = testbed
        self.master = master
        self.wake = (pipe[0], pipe[1])
        self.events = events
        var engine = CaterinaBootloader(flash: flash, eeprom: eeprom)
        engine.fault = fault
        self.bootloader = Mutex(engine)
        let thread = Thread { [self] in
            serve()
            finished.signal()
        }
        thread.name = "caterina"
        thread.start()
    }

    /// The bootloader's state now (flash, exited, refused writes).
    public var state: CaterinaBootloader { bootloader.withLock { $0 } }

    /// Arms a failure to act out at the next block write over its address.
    public func arm(_ fault: BootloaderFault) {
        bootloader.withLock { $0.fault = fault }
    }

    /// Stops answering (the master stays the testbed's: closing the testbed removes it).
    public func close() {
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
    }

    /// Stops answering and takes the board off the bus: the tty, the interfaces and
    /// the device go with "remove" uevents, children first, as the kernel does.
    public func unplug() {
        close()
        let first = removed.withLock { r in
            defer { r = true }
            return !r
        }
        guard first else { return }
        hangUp()
        let tty = record.interfaceSyspaths[0] + "/tty/" + placement.tty
        for path in [tty] + record.interfaceSyspaths.reversed() + [record.syspath] {
            testbed.uevent(path, "remove")
            testbed.remove(path)
        }
    }

    deinit { close() }

    /// What a client holding the tty open sees when the board goes: its reads fail
    /// (EIO) and poll says POLLHUP, as cdc_acm hangs up a vanished port. umockdev keeps
    /// the pty when the device is removed, so the slave is hung up here (TIOCVHANGUP,
    /// which needs CAP_SYS_ADMIN; without it the client meets silence, a timeout).
    private func hangUp() {
        // TIOCGPTN (_IOR('T', 0x30, unsigned int)): the slave's number under /dev/pts.
        var number: UInt32 = 0
        guard ioctl(master, UInt(0x8004_5430), &number) == 0 else { return }
        let fd = Glibc.open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { Glibc.close(fd) }
        // libc's own ioctl: umockdev's preload answers TIOCVHANGUP with ENOTTY itself.
        typealias IoctlNoArgument = @convention(c) (Int32, UInt) -> Int32
        guard let libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), let symbol = dlsym(libc, "ioctl") else { return }
        _ = unsafeBitCast(symbol, to: IoctlNoArgument.self)(fd, 0x5437)  // TIOCVHANGUP
    }

    /// Reads what the client sends, answers it. A closed slave shows as POLLHUP on the
    /// master until a client opens the port again: then the loop waits on the wake pipe
    /// for a short while instead of spinning.
    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var exitReported = false
        while true {
            var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let exited = bootloader.withLock { $0.exited }
            // After 'E' the board is gone once the client closed the port, or soon anyway.
            guard poll(&fds, 2, exited && !exitReported ? Self.exitNoticedMicroseconds : -1) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 { return }
            if exited, !exitReported, fds[0].revents & Int16(POLLIN) == 0 {
                exitReported = true
                events(.exited)
                continue
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if n > 0 {
                    // Still answered after 'E': `emulate caterina`'s board stays a bootloader
                    // (nothing else is there to enumerate); inside `emulate bridge` it goes.
                    let arrived = ChipTime.now()
                    let (replies, tripped) = bootloader.withLock { b in (b.replies(to: Array(buffer[0..<n])), b.takeTripped()) }
                    // Each answer goes when the chip would have finished the work before it
                    // (the host waits for it, so holding it holds the host), counted from
                    // the command's arrival so a late wake-up is not paid twice.
                    var due = arrived
                    for reply in replies {
                        due += reply.busyMicroseconds
                        if reply.busyMicroseconds > 0, !waitForChip(untilMicroseconds: due) { return }
                        writeAll(reply.bytes)
                    }
                    if let tripped { events(.fault(tripped)) }
                    continue
                }
            }
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                var wakeOnly = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
                if poll(&wakeOnly, 1, 10) > 0 { return }
            }
        }
    }

    /// Waits until the monotonic clock reads `deadline` (µs): the chip is programming its
    /// flash. False when `close` asked the thread to stop meanwhile.
    private func waitForChip(untilMicroseconds deadline: UInt64) -> Bool {
        while true {
            let now = ChipTime.now()
            guard now < deadline else { return true }
            // poll(2) counts whole milliseconds: it waits out all but the last one, on the
            // wake pipe; the rest is slept to the microsecond.
            guard deadline - now >= 2000 else {
                ChipTime.sleep(untilMicroseconds: deadline)
                return true
            }
            var wakeOnly = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if poll(&wakeOnly, 1, Int32(clamping: (deadline - now - 1000) / 1000)) > 0 { return false }
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress! + sent, bytes.count - sent) }
            if n < 0 {
                if errno == EINTR { continue }
                return  // the client went away: what it did not read is lost, as on a real port
            }
            sent += n
        }
    }

    /// A Caterina board's descriptors (LUFA's CDC bootloader, as Caterina ships it):
    /// class 02 (CDC) at the device, 8-byte endpoint 0; one configuration, bus
    /// powered, 100 mA; the communications interface (02/02/01: ACM, AT commands) with
    /// its header, ACM and union functional descriptors and the notification endpoint
    /// 0x82; the data interface (0A) with bulk 0x04 OUT and 0x83 IN, 16 bytes each.
    static func deviceRecord(_ identity: Identity, placement: Placement = Placement()) throws(EmulationError) -> USBDeviceRecord {
        let device: [UInt8] = [
            18, 1, 0x10, 0x01, 0x02, 0x00, 0x00, 8, UInt8(identity.vendorID & 0xFF), UInt8(identity.vendorID >> 8),
            UInt8(identity.productID & 0xFF), UInt8(identity.productID >> 8), 0x01, 0x00, 1, 2, 0, 1,
        ]
        let configuration: [UInt8] = [
            9, 2, 62, 0, 2, 1, 0, 0x80, 50,
            9, 4, 0, 0, 1, 0x02, 0x02, 0x01, 0,
            5, 0x24, 0x00, 0x10, 0x01,
            4, 0x24, 0x02, 0x04,
            5, 0x24, 0x06, 0, 1,
            7, 5, 0x82, 3, 8, 0, 0xFF,
            9, 4, 1, 0, 2, 0x0A, 0, 0, 0,
            7, 5, 0x04, 2, 16, 0, 1,
            7, 5, 0x83, 2, 16, 0, 1,
        ]
        do {
            let description = try USBDeviceDescription(
                device: device, configurations: [configuration], manufacturer: identity.manufacturer, product: identity.product, serial: nil)
            return USBDeviceRecord(
                bus: placement.bus, port: placement.port, address: placement.address, description: description, configuration: 1)
        } catch { throw .testbed("the Caterina descriptors: \(error.description)") }
    }

    /// Both interfaces are bound to cdc_acm, as the kernel binds them.
    static func withDriver(_ text: String) -> String {
        text.replacingOccurrences(of: "E: DEVTYPE=usb_interface\n", with: "E: DEVTYPE=usb_interface\nE: DRIVER=cdc_acm\n")
    }

    /// The tty on the communications interface (`1-1:1.0/tty/ttyACM0`), with the udev
    /// properties udev's usb_id gives it (what `udevadm info` and libudev clients read).
    static func ttyRecord(device: USBDeviceRecord, identity: Identity, tty: String = "ttyACM0") -> String {
        let hex4 = { (v: UInt16) in Hex.digits(v, width: 4, case: .lower) }
        let model = identity.product.replacingOccurrences(of: " ", with: "_")
        let vendor = identity.manufacturer.replacingOccurrences(of: " ", with: "_")
        // The pty majors' minors from 64 on, one per tty (see the type's comment).
        let minor = 64 + (Int(tty.drop { !$0.isNumber }) ?? 0)
        return [
            "P: \(device.interfaceSyspaths[0].dropFirst(4))/tty/\(tty)",
            "N: \(tty)",
            "E: DEVNAME=/dev/\(tty)",
            "E: SUBSYSTEM=tty",
            "E: MAJOR=4",
            "E: MINOR=\(minor)",
            "E: ID_BUS=usb",
            "E: ID_VENDOR_ID=\(hex4(identity.vendorID))",
            "E: ID_MODEL_ID=\(hex4(identity.productID))",
            "E: ID_VENDOR=\(vendor)",
            "E: ID_MODEL=\(model)",
            "E: ID_SERIAL=\(vendor)_\(model)",
            "E: ID_USB_INTERFACE_NUM=00",
            "E: ID_USB_DRIVER=cdc_acm",
            "E: ID_PATH=pci-0000:00:14.0-usb-0:\(device.port):1.0",
            "A: dev=4:\(minor)\\n",
            "L: device=../../../\(device.busPort):1.0",
        ].joined(separator: "\n") + "\n"
    }
}

extension CaterinaEmulation {
    /// Puts an application on the flash before the client comes (`--image`): read,
    /// checked for the part, written page by page over erased flash.
    public static func preload(_ flash: inout FlashMemory, imageFile path: String) throws(EmulationError) {
        let bytes: [UInt8]
        do { bytes = try FileReader.read(FilePath(path), limit: FirmwareImageFile.byteLimit) } catch { throw .testbed("--image: \(error.description)") }
        do {
            let image = try FirmwareImageFile.image(bytes, source: path, part: flash.part)
            for page in image.pages(of: flash.part) { try flash.writePage(at: page.address, page.bytes) }
        } catch let e as ImageError {
            throw .testbed("--image: \(e.description)")
        } catch {
            throw .testbed("--image \(path): \(error)")
        }
    }
}
