import AVRBootloaders
import BridgeLink
import BridgeProtocol
import DeviceInterface
import Devices
import FirmwareImage
import Foundation
import USBBridge

/// The bootloader `flash` programs, and how it got there: found waiting already
/// (`--port`, `--device`, the only one on USB), reset into by the 1200-baud touch
/// (`--port` on a sketch's tty), or entered from running hapbridge firmware through
/// its board link (ENTER_BOOTLOADER), in which case the firmware is awaited on the
/// same port after the flash (`awaitFirmware`). `hapbridge flash` and `hapbridge run`'s
/// flash step both go through `choose` and `flash`.
public struct FlashTarget {
    public var programmer: any BootloaderProgrammer
    /// Its tty or USB port, for messages and the report.
    public var location: String
    /// The USB port the board is on, when known.
    public var port: USBPort?
    /// How the board reached its bootloader: "waiting" (it was there), "1200-baud
    /// touch", "enter-bootloader" (from hapbridge firmware).
    public var entry: String
    /// The firmware version the board ran before, when it ran hapbridge firmware.
    public var previousFirmware: String?
    /// The serial that firmware reported in HELLO_REPLY (`UNSET`: none), when it ran
    /// hapbridge firmware.
    public var previousSerial: String?

    /// What `flash` did: the plan's report and, for a board that ran hapbridge
    /// firmware, the version it runs now (enumerated again on its port, HELLO answered).
    public struct Outcome: Sendable {
        public var report: FlashPlan.Report
        public var firmware: String?
    }

    /// The serial record to write: the one given (`--serial`), else a derived one when
    /// the board's firmware reported `UNSET` (so calibrations can be stored for it),
    /// else none (a board with a serial keeps it; a board reached in its bootloader
    /// said nothing, and its EEPROM is left as it is).
    public func serialWrite(given: BoardSerialNumber?) throws(FlashError) -> SerialWrite? {
        if let given { return SerialWrite(given, source: .given) }
        guard previousSerial == BoardSerialNumber.unset.text else { return nil }
        return try SerialWrite.derive()
    }

    /// Runs the plan (check, erase, write, verify, serial record, start) on this
    /// bootloader and, when the board came from hapbridge firmware, follows it back to
    /// its firmware on the same port (`awaitFirmware`).
    public func flash(
        _ image: FirmwareImage, expected part: AVRPart, mode: FlashPlan.Mode, progress: FlashProgress, catalog: DeviceCatalog,
        stop: FlashStop = FlashStop(), serial: SerialWrite? = nil
    ) async throws(FlashError) -> Outcome {
        let report = try FlashPlan.run(
            image: image, expected: part, programmer: programmer, mode: mode, progress: progress, stop: stop, location: location, serial: serial)
        guard previousFirmware != nil, let port else { return Outcome(report: report, firmware: nil) }
        do { return Outcome(report: report, firmware: try await Self.awaitFirmware(on: port, catalog: catalog, stop: stop)) } catch {
            // Flashed and started: what is left is a board on its way back to its firmware.
            var left = FlashLeft(application: mode == .write ? .started : .intact, inBootloader: false, bootloader: programmer.protocolName)
            left.image = report.start...(report.end - 1)
            left.written = report.writtenBytes > 0 ? [report.start...(report.end - 1)] : []
            left.verifiedBytes = report.verifiedBytes
            throw FlashError(error.kind, error.message + (error.kind == .stopped ? ": " + left.description : ""), left: left)
        }
    }

    /// How often a wait for a board looks at its `FlashStop`.
    static let stopLook: Duration = .milliseconds(100)

    /// How long the bootloader has to appear after the reset: a real board's Caterina
    /// enumerates within about a second; the emulated ELF board's jump takes longer.
    static let bootloaderTimeout: Duration = .seconds(10)
    /// How long the firmware has to enumerate and answer HELLO after the bootloader
    /// left (the emulated ELF board boots its harness first).
    static let firmwareTimeout: Duration = .seconds(30)

    static var caterinaIDs: [(vendorID: UInt16, productID: UInt16)] {
        BootloaderIdentity.caterinas.map { ($0.vendorID, $0.productID) }
    }

    /// The sketches whose tty gets the 1200-baud touch when `flash` finds one by itself.
    static var sketchIDs: [(vendorID: UInt16, productID: UInt16)] {
        BootloaderIdentity.sketches.map { ($0.vendorID, $0.productID) }
    }

    /// The bootloader to program: --port (Caterina, or a sketch's tty: the 1200-baud
    /// touch), --device (whatever is at that USB address: a bootloader, or hapbridge
    /// firmware sent into its bootloader), else the only bootloader or the only bridge
    /// board on USB.
    /// `stop`: looked at before the board is sent anywhere and while its bootloader is
    /// awaited; a stop there says where the board is (`FlashError.left`).
    ///
    /// `waitingForBootloader`: with neither --port nor --device and nothing on USB to
    /// flash yet, how long to wait for a bootloader to appear (the double-reset route:
    /// the user starts `flash`, then taps reset twice, and Caterina's 8-second window
    /// opens with the image already read, checked and, for the carried firmware, built);
    /// `announce` says once that it waits. nil: do not wait.
    public static func choose(
        port: String?, device: String?, catalog: DeviceCatalog, stop: FlashStop = FlashStop(), waitingForBootloader: Duration? = nil,
        announce: (String) -> Void = { _ in }
    ) async throws(FlashError) -> FlashTarget {
        try untouched(stop, "before the board was reached")
        if port == nil, device == nil, let wait = waitingForBootloader {
            try awaitAnything(for: wait, catalog: catalog, stop: stop, announce: announce)
        }
        if let port { return try ttyTarget(port, stop: stop) }
        if let device {
            guard case .usb(let selector)? = try? DeviceAddress(parsing: device) else { throw FlashError(.noBootloader, "--device \(device) is not a USB address") }
            let here = catalog.usbDevices().filter { d in
                switch selector {
                case .any: true
                case .port(let bus, let ports): d.port.bus == bus && d.port.ports == ports
                case .serial(let s): d.serialNumber == s
                }
            }
            if here.isEmpty {
                let all = catalog.usbDevices()
                let seen = all.isEmpty ? "nothing on USB" : "on USB: " + all.map { "usb:\($0.port.path) \($0.kind.rawValue)" }.joined(separator: ", ")
                throw FlashError(
                    .noBootloader,
                    "nothing to flash at \(device): no hapbridge board, no Caterina and no Atmel DFU bootloader there (\(seen)); `hapbridge list` shows the addresses")
            }
            if let board = here.first(where: { $0.kind == .bridgeFirmware })?.bridgeBoard {
                return try await fromFirmware(board, catalog: catalog, stop: stop)
            }
            if case .port(let bus, let ports) = selector,
                let tty = CaterinaPort.find(identities: caterinaIDs, port: DeviceAddress.portPath(bus: bus, ports: ports)).first
            {
                return FlashTarget(
                    programmer: try CaterinaProgrammer(port: tty), location: tty, port: USBPort(bus: bus, ports: ports), entry: "waiting")
            }
            let dfu = try AtmelDFUProgrammer(selector: selector)
            return FlashTarget(programmer: dfu, location: dfu.location, port: nil, entry: "waiting")
        }
        let ttys = CaterinaPort.find(identities: caterinaIDs)
        let dfus = AtmelDFUProgrammer.locations()
        let boards = catalog.usbBoards()
        // A board fresh from the shop runs a sketch: found by its tty, as arduino-cli
        // finds a board to upload to, and sent to its Caterina by the 1200-baud touch.
        let sketches = CaterinaPort.find(identities: sketchIDs)
        switch (ttys.count, dfus.count, boards.count, sketches.count) {
        case (1, 0, _, _): return FlashTarget(programmer: try CaterinaProgrammer(port: ttys[0]), location: ttys[0], port: nil, entry: "waiting")
        case (0, 1, _, _):
            let dfu = try AtmelDFUProgrammer(selector: .any)
            return FlashTarget(programmer: dfu, location: dfu.location, port: nil, entry: "waiting")
        case (0, 0, 1, 0): return try await fromFirmware(boards[0], catalog: catalog, stop: stop)
        case (0, 0, 0, 1): return try ttyTarget(sketches[0], stop: stop)
        case (0, 0, 0, 0):
            throw FlashError(
                .noBootloader,
                "no bootloader, no hapbridge board and no Arduino sketch found on USB (Caterina \(BootloaderIdentity.list(BootloaderIdentity.caterinas)); "
                    + "Atmel DFU \(BootloaderIdentity.atmega32u4DFU); sketches \(BootloaderIdentity.list(BootloaderIdentity.sketches))): "
                    + CaterinaPort.manualReset + ", or give --port/--device")
        case (0, 0, _, _):
            let found = boards.map { "usb:" + $0.portPath } + sketches.map { "\($0) (a sketch)" }
            throw FlashError(
                .noBootloader, "\(found.count) boards (\(found.joined(separator: ", "))): choose one with --device, or a sketch's tty with --port")
        default:
            throw FlashError(.noBootloader, "several bootloaders (\((ttys + dfus.map { "usb:" + $0 }).joined(separator: ", "))): choose one with --port or --device")
        }
    }

    /// How often the wait for a bootloader looks (sysfs for a Caterina tty, libusb for
    /// Atmel DFU): well inside Caterina's 8-second window.
    static let bootloaderLook: UInt32 = 100_000

    /// Returns at once when USB has something `choose` can flash (a bootloader, a
    /// hapbridge board, a sketch); otherwise waits up to `limit` for a bootloader to
    /// appear, as after a double reset.
    static func awaitAnything(for limit: Duration, catalog: DeviceCatalog, stop: FlashStop, announce: (String) -> Void) throws(FlashError) {
        func bootloaderPresent() -> Bool {
            !CaterinaPort.find(identities: caterinaIDs).filter { FileManager.default.fileExists(atPath: $0) }.isEmpty
                || !AtmelDFUProgrammer.locations().isEmpty
        }
        if bootloaderPresent() || !catalog.usbBoards().isEmpty || !CaterinaPort.find(identities: sketchIDs).isEmpty { return }
        let said = "\(limit.components.seconds) s"
        announce(
            "waiting up to \(said) for a bootloader: put the board in it now (a Pro Micro: short RST to GND twice within a second; "
                + "Caterina then waits 8 s)")
        let deadline = ContinuousClock.now + limit
        while !bootloaderPresent() {
            try untouched(stop, "while a bootloader was awaited")
            guard ContinuousClock.now < deadline else {
                throw FlashError(
                    .noBootloader,
                    "no bootloader appeared within \(said) (Caterina \(BootloaderIdentity.list(BootloaderIdentity.caterinas)); Atmel DFU "
                        + "\(BootloaderIdentity.atmega32u4DFU)): " + CaterinaPort.manualReset)
            }
            usleep(bootloaderLook)
        }
    }

    /// --port: a Caterina tty is programmed as it is; the tty of any other USB device
    /// (a sketch) gets the 1200-baud touch and its Caterina is awaited on the same
    /// USB port (or as a new tty when sysfs does not say the port).
    static func ttyTarget(_ tty: String, stop: FlashStop) throws(FlashError) -> FlashTarget {
        let owner = CaterinaPort.usbDevice(ofTTY: tty)
        let isBootloader = owner.map { o in caterinaIDs.contains { $0.vendorID == o.vendorID && $0.productID == o.productID } } ?? true
        if isBootloader { return FlashTarget(programmer: try CaterinaProgrammer(port: tty), location: tty, port: nil, entry: "waiting") }
        let before = CaterinaPort.find(identities: caterinaIDs)
        try CaterinaPort.touch1200(tty)
        let found = CaterinaPort.waitForBootloader(
            identities: caterinaIDs, port: owner?.port, before: before, timeout: bootloaderTimeout, giveUp: { stop.requested != nil })
        try handingOver(stop, "while its Caterina was awaited after the 1200-baud touch")
        guard let found else {
            throw FlashError(
                .noBootloader,
                "\(tty) got the 1200-baud reset but no Caterina bootloader appeared\(owner.map { " on usb:\($0.port)" } ?? "") within \(bootloaderTimeout) "
                    + "(the sketch may not listen for it): " + CaterinaPort.manualReset)
        }
        return FlashTarget(programmer: try CaterinaProgrammer(port: found), location: found, port: nil, entry: "1200-baud touch")
    }

    /// A board running hapbridge firmware: HELLO, ENTER_BOOTLOADER through its link,
    /// then its bootloader on the same port (another device number), its tty for
    /// Caterina.
    /// A stop before anything was sent to the board.
    static func untouched(_ stop: FlashStop, _ where: String) throws(FlashError) {
        do { try stop.check(`where`) } catch {
            let left = FlashLeft(application: .untouched, inBootloader: false)
            throw FlashError(.stopped, error.message + ": " + left.description, left: left)
        }
    }

    /// A stop during the hand-over: the board has left its firmware for its bootloader,
    /// nothing is erased (`FlashLeft`: what that bootloader does by itself).
    static func handingOver(_ stop: FlashStop, _ where: String) throws(FlashError) {
        do { try stop.check(`where`) } catch {
            let left = FlashLeft(application: .intact, inBootloader: true)
            throw FlashError(.stopped, error.message + ": " + left.description, left: left)
        }
    }

    static func fromFirmware(_ board: USBBridgeBoard, catalog: DeviceCatalog, stop: FlashStop) async throws(FlashError) -> FlashTarget {
        guard let usb = catalog.usb else { throw FlashError(.noBootloader, catalog.usbUnavailable ?? "USB unavailable") }
        let opened: OpenedDevice
        do { opened = try catalog.open(board) } catch {
            throw FlashError(.noBootloader, "cannot open the hapbridge board at usb:\(board.portPath) to send it into its bootloader: \(error)")
        }
        let link = opened.link()
        let version: String
        let reportedSerial: String?
        do {
            let identity = try await link.open()
            version = identity.firmwareVersion
            reportedSerial = identity.serialNumber
        } catch {
            link.close()
            throw FlashError(.noBootloader, "the hapbridge board at usb:\(board.portPath) did not take ENTER_BOOTLOADER (\(error)): " + CaterinaPort.manualReset)
        }
        // The last moment a stop leaves the board as it was.
        do { try untouched(stop, "before the board was sent to its bootloader") } catch {
            link.close()
            throw error
        }
        do { _ = try await link.enterBootloader() } catch {
            link.close()
            throw FlashError(.noBootloader, "the hapbridge board at usb:\(board.portPath) did not take ENTER_BOOTLOADER (\(error)): " + CaterinaPort.manualReset)
        }
        link.close()
        let found: USBDiscoveredDevice
        do {
            found = try await USBDiscovery.waitForDevice(
                onPort: board.port, kinds: [.caterinaBootloader, .atmelDFUBootloader], replacing: board.deviceAddress, timeout: bootloaderTimeout, in: usb,
                giveUp: (every: stopLook, when: { stop.requested != nil }))
        } catch {
            try handingOver(stop, "while usb:\(board.portPath)'s bootloader was awaited (ENTER_BOOTLOADER sent)")
            throw FlashError(
                .noBootloader, "the board at usb:\(board.portPath) left for its bootloader, but \(error.description): " + CaterinaPort.manualReset)
        }
        if found.kind == .atmelDFUBootloader {
            let dfu = try AtmelDFUProgrammer(selector: .port(bus: board.port.bus, ports: board.port.ports), context: usb)
            return FlashTarget(
                programmer: dfu, location: dfu.location, port: board.port, entry: "enter-bootloader", previousFirmware: version, previousSerial: reportedSerial)
        }
        // The tty comes with the device; sysfs may show it a moment after.
        let tty = CaterinaPort.waitForBootloader(
            identities: caterinaIDs, port: board.port.path, before: [], timeout: .seconds(3), giveUp: { stop.requested != nil })
        try handingOver(stop, "while usb:\(board.portPath)'s Caterina tty was awaited")
        guard let tty else {
            throw FlashError(.noBootloader, "Caterina enumerated on usb:\(board.portPath) but no tty of it appeared (is cdc_acm loaded?)")
        }
        return FlashTarget(
            programmer: try CaterinaProgrammer(port: tty), location: tty, port: board.port, entry: "enter-bootloader", previousFirmware: version,
            previousSerial: reportedSerial)
    }

    /// After the bootloader left: the hapbridge firmware on `port` (enumerated, HELLO
    /// answered); its version.
    public static func awaitFirmware(on port: USBPort, catalog: DeviceCatalog, stop: FlashStop = FlashStop()) async throws(FlashError) -> String {
        guard let usb = catalog.usb else { throw FlashError(.applicationDidNotStart, catalog.usbUnavailable ?? "USB unavailable") }
        let found: USBDiscoveredDevice
        do {
            found = try await USBDiscovery.waitForDevice(
                onPort: port, kinds: [.bridgeFirmware], timeout: firmwareTimeout, in: usb, giveUp: (every: stopLook, when: { stop.requested != nil }))
        } catch {
            try stop.check("while the firmware was awaited on usb:\(port.path)")
            throw FlashError(
                .applicationDidNotStart,
                "the flash is verified, but no hapbridge firmware came back on usb:\(port.path): \(error.description); unplug the board and plug it back in")
        }
        guard let board = found.bridgeBoard else {
            throw FlashError(.applicationDidNotStart, "the device on usb:\(port.path) is not a hapbridge board")
        }
        let opened: OpenedDevice
        do { opened = try catalog.open(board) } catch {
            throw FlashError(.applicationDidNotStart, "the hapbridge firmware came back on usb:\(port.path) but cannot be opened: \(error)")
        }
        let link = opened.link()
        defer { link.close() }
        do { return try await link.open().firmwareVersion } catch {
            throw FlashError(.applicationDidNotStart, "the hapbridge firmware came back on usb:\(port.path) but did not answer HELLO: \(error)")
        }
    }
}
