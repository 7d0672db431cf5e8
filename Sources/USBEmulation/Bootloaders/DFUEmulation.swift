import CUMockdev
import FileAccess
import FirmwareImage
import Foundation
import Glibc
import RealTime
import Synchronization

/// `hapbridge emulate dfu -- COMMAND`: one ATmega32U4 in Atmel's DFU bootloader
/// (`DFUBootloader`) on bus 1, port 1, behind real libusb, while COMMAND runs.
///
/// The bootloader enumerates as the kernel would enumerate it (`KernelEnumeration`),
/// so libusb, lsusb and dfu-programmer see exactly its descriptors. When a client
/// starts the application (or resets), the device leaves the bus as the real one
/// does; the flash keeps what was written. At the end one summary line goes to
/// standard error, and with `dumpPath` the whole flash (32 KiB, the bootloader
/// section included) is written there, so a test can compare it with the image.
///
/// Exit status as `EmulationSession`'s: COMMAND's own, 128 + N for a signal, 126 /
/// 127 when COMMAND could not be run / found; `run` throws when the emulation could
/// not be set up (the caller exits 125).
public enum DFUEmulation {
    public struct Options: Sendable {
        public var command: [String]
        /// Where to write the flash when COMMAND has ended (nil: nowhere).
        public var dumpPath: String?
        /// A failure at the first block programmed over its address (`--fault`); after
        /// `unplug` the board is plugged back in, in its bootloader, a moment later.
        public var fault: BootloaderFault?

        public init(command: [String], dumpPath: String? = nil, fault: BootloaderFault? = nil) {
            self.command = command
            self.dumpPath = dumpPath
            self.fault = fault
        }
    }

    static let bus = 1
    static let port = 1
    /// The address the kernel gives the first device after the root hub.
    static let address: UInt8 = 2
    /// The longest the device stays on the bus after it left the bootloader while a
    /// client still holds it open (see `run`).
    static let disconnectNoticedMicroseconds: UInt64 = 200_000
    /// How long an unplugged board stays off the bus before it is plugged back in.
    static let replugDelayMicroseconds: UInt32 = 300_000

    public static func run(_ options: Options) throws(EmulationError) -> Int32 {
        try Preload.ensureLoaded()
        // Checked before COMMAND runs, written when it has ended.
        let dump = try options.dumpPath.map { path throws(EmulationError) in try ResultFile(option: "--dump", path: path) }
        let testbed = try Testbed()
        defer { testbed.close() }
        let onBus = Mutex<(record: USBDeviceRecord, handler: USBDevFSHandler)?>(nil)
        let left = Mutex<String?>(nil)
        let queue = DispatchQueue(label: "hapbridge.emulate.dfu")
        // Set once the bootloader exists: puts it on the bus at the next address.
        let replug = Mutex<(@Sendable () -> Void)?>(nil)
        let bootloader = try DFUBootloader(flash: FlashMemory(part: .atmega32u4, bootloader: DFUBootloader.bootSection)) { why in
            left.withLock { $0 = why }
            // Off the bus once the client has closed the device, or after
            // `disconnectNoticedMicroseconds`: a real disconnect reaches usbfs some
            // milliseconds after the status stage (the hub reports the port change),
            // and clients rely on that: dfu-programmer releases the interface right
            // after `start`'s last transfer and fails ("failed to release interface")
            // if the device is already gone.
            queue.async {
                let deadline = RealTimeExecutor.monotonicMicroseconds() + disconnectNoticedMicroseconds
                while onBus.withLock({ $0?.handler.hasClients ?? false }), RealTimeExecutor.monotonicMicroseconds() < deadline {
                    usleep(1000)
                }
                remove(onBus.withLock { p in defer { p = nil }; return p }, from: testbed)
                // Unplugged mid-write: the user plugs it back in; with the application
                // only partly written it comes up in its bootloader.
                if why == DFUBootloader.unplugged {
                    usleep(replugDelayMicroseconds)
                    replug.withLock { $0 }?()
                }
            }
        }
        if let fault = options.fault { bootloader.arm(fault) }
        try testbed.add(record: USBRootHubRecord(bus: bus).text)
        let nextAddress = Mutex(address)
        @Sendable func plug() throws(EmulationError) {
            let address = nextAddress.withLock { a in defer { a += 1 }; return a }
            let plugged = try testbed.plug(bootloader, bus: bus, port: port, address: address, board: "\(bus)-\(port)")
            onBus.withLock { $0 = plugged }
        }
        try plug()
        replug.withLock {
            $0 = {
                bootloader.powerOn()
                do { try plug() } catch { report("dfu: could not plug the board back in: \(error)") }
            }
        }

        let signals = CommandSignals(hotplug: nil)
        defer { signals.stop() }
        let status = signals.run(options.command, report: report)
        queue.sync { remove(onBus.withLock { p in defer { p = nil }; return p }, from: testbed) }
        bootloader.powerOff()

        let c = bootloader.counters
        let ending = left.withLock { $0 }.map { "; the bootloader \($0) and left the bus" } ?? ""
        report(
            "dfu: \(c.erases) erase(s), \(c.pagesWritten) page(s) written, \(c.bytesRead) byte(s) read, \(c.refusals) command(s) refused, "
                + "flash busy \(ChipTime.seconds(bootloader.flash.busyMicroseconds)) s\(ending)")
        try dump?.write(bootloader.flash.bytes, signals: signals)
        return status
    }

    /// The device leaves the bus: transfers in flight end with -ESHUTDOWN, then the
    /// interfaces and the device go with "remove" uevents, children first.
    private static func remove(_ plugged: (record: USBDeviceRecord, handler: USBDevFSHandler)?, from testbed: Testbed) {
        guard let (record, handler) = plugged else { return }
        handler.disconnect()
        for path in record.interfaceSyspaths.reversed() {
            testbed.uevent(path, "remove")
            testbed.remove(path)
        }
        testbed.uevent(record.syspath, "remove")
        testbed.remove(record.syspath)
    }

    private static func report(_ line: String) {
        FileHandle.standardError.write(Data("hapbridge emulate: \(line)\n".utf8))
    }
}
