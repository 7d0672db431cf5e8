import AVRBootloaders
import DeviceInterface
import FirmwareImage
import Glibc
import Hex
import LibUSB

/// Atmel's DFU bootloader (the ATmega32U4's factory bootloader, 03EB:2FF4) driven
/// over libusb: FLIP commands (`FLIPRequest`) in DNLOAD control transfers to interface
/// 0, each one's outcome read with GETSTATUS, data read back with UPLOAD. The part is
/// named by the signature avrdude's flip1 reads; erase, blank check, program in blocks
/// of up to 1 KiB as dfu-programmer does, read back, start the application.
///
/// Every transfer is bounded (`transferTimeoutMilliseconds`; the erase, which the
/// bootloader may answer only once done, by `eraseTimeoutSeconds`). A refused command is
/// cleared (CLRSTATUS) so the bootloader stays usable, and reported with the DFU status
/// and the range it was for.
public final class AtmelDFUProgrammer: BootloaderProgrammer {
    public let protocolName = "atmel-dfu"
    /// Where the bootloader was found ("1-2"), for messages.
    public let location: String
    /// The part its signature named (`readPart`), once read.
    public private(set) var part: AVRPart?

    private let context: USBContext
    private let handle: USBDeviceHandle
    /// DFU's wValue block number, counted per DNLOAD and UPLOAD as dfu-programmer does.
    private var block: UInt16 = 0
    /// The bootloader's bMaxPacketSize0: program data is aligned to its packets.
    private let controlPacketSize: Int
    /// The 64 KiB flash page selected (`06 03 00 P`); nil until the first selection.
    private var selectedPage: UInt8?

    /// Per control transfer: the bootloader answers a program command of 1 KiB once its
    /// 8 pages are erased and written (tens of ms), everything else but the erase at once.
    public static let transferTimeoutMilliseconds: UInt32 = 2000
    /// The longest a chip erase may keep the bootloader from answering: the real part
    /// erases its 224 application pages one by one at up to 4.5 ms each (about 1 s), and
    /// may hold the erase's DNLOAD or its GETSTATUS until done (avrdude's flip1 allows
    /// 10 s, dfu-programmer 20 s).
    public static let eraseTimeoutSeconds = 10

    /// The USB ports ("1-2") of every Atmel DFU bootloader plugged in.
    public static func locations(context: USBContext? = nil) -> [String] {
        guard let context = context ?? (try? USBContext()), let devices = try? context.devices() else { return [] }
        return devices.compactMap { d in
            guard let desc = try? d.descriptor(), isBootloader(desc) else { return nil }
            return DeviceAddress.portPath(bus: d.busNumber, ports: d.portNumbers)
        }.sorted()
    }

    /// Finds the bootloader and claims its DFU interface. `selector`: the board the
    /// user chose (`--device usb:1-2`); `.any` takes the only one.
    public init(selector: DeviceAddress.USBSelector = .any, context: USBContext? = nil) throws(FlashError) {
        do { self.context = try context ?? USBContext() } catch {
            throw FlashError(.noBootloader, "cannot open libusb: \(error)")
        }
        let candidates: [(USBDevice, String)]
        do {
            candidates = try self.context.devices().compactMap { d -> (USBDevice, String)? in
                guard let desc = try? d.descriptor(), Self.isBootloader(desc) else { return nil }
                return (d, DeviceAddress.portPath(bus: d.busNumber, ports: d.portNumbers))
            }
        } catch { throw FlashError(.noBootloader, "cannot list USB devices: \(error)") }
        let ids = BootloaderIdentity.atmega32u4DFU.description
        let chosen: [(USBDevice, String)]
        switch selector {
        case .any: chosen = candidates
        case .port(let bus, let ports): chosen = candidates.filter { $0.0.busNumber == bus && $0.0.portNumbers == ports }
        case .serial(let serial):
            chosen = candidates.filter { c in
                guard let h = try? c.0.open(), let d = try? c.0.descriptor() else { return false }
                return (try? h.string(at: d.serialNumberIndex)) == serial
            }
        }
        guard let (device, location) = chosen.first.map({ ($0.0, $0.1) }) else {
            let seen = candidates.isEmpty ? "none on USB" : "found at " + candidates.map(\.1).joined(separator: ", ")
            throw FlashError(
                .noBootloader,
                "no Atmel DFU bootloader (\(ids)) \(selector == .any ? "" : "at \(DeviceAddress.usb(selector)) ")(\(seen)): put the board into its bootloader (press its reset button or short RST to GND)")
        }
        guard chosen.count == 1 else {
            throw FlashError(
                .noBootloader, "\(chosen.count) Atmel DFU bootloaders (\(ids)) at \(chosen.map(\.1).joined(separator: ", ")): choose one with --device usb:BUS-PORT")
        }
        self.location = location
        // The bootloader's own bMaxPacketSize0 (32 on the 32U4's); 0 when unreadable: no filler.
        controlPacketSize = Int((try? device.descriptor())?.maxPacketSize0 ?? 0)
        do {
            handle = try device.open()
            try handle.claimInterface(AtmelDFU.interface)
        } catch {
            throw FlashError(.noBootloader, "cannot open the DFU bootloader at \(location): \(error)" + (error.advice.map { ": \($0)" } ?? ""))
        }
        try makeIdle()
    }

    // MARK: BootloaderProgrammer

    public func readPart() throws(FlashError) -> AVRPart {
        var signature: [UInt8] = []
        for selector in FLIPRequest.signature {
            try run(FLIPRequest.readConfiguration(selector), step: "reading the signature")
            let byte = try upload(1, step: "reading the signature")
            guard byte.count == 1 else { throw FlashError(.protocolError, "reading the signature: the bootloader at \(location) returned \(byte.count) bytes for one") }
            signature += byte
        }
        guard let part = AVRPart.withSignature(signature) else {
            let known = AVRPart.all.map { "\($0.name): \(Hex.bytes($0.signature, separator: " "))" }.joined(separator: ", ")
            // avrdude's flip1.c: after a chip erase the factory bootloader answers 0xFF to
            // these reads until it is reset.
            let erased = signature.allSatisfy { $0 == 0xFF }
                ? ": Atmel's bootloader answers FF here after a chip erase until it is reset; put the board into its bootloader again (reset it with HWB held low, or unplug and replug it) and run `hapbridge flash` again"
                : ""
            throw FlashError(.wrongPart, "the bootloader at \(location) reports signature \(Hex.bytes(signature, separator: " ")), no part hapbridge flashes (\(known))\(erased)")
        }
        self.part = part
        return part
    }

    public func eraseApplication(progress: FlashProgress) throws(FlashError) {
        // The blank check's range is the part's application section.
        let part: AVRPart
        if let known = self.part { part = known } else { part = try readPart() }
        progress.report(.erase, 0, part.applicationBytes)
        try download(FLIPRequest.eraseAll, step: "erasing", timeoutMilliseconds: UInt32(Self.eraseTimeoutSeconds * 1000))
        // The real bootloader NAKs GETSTATUS while it erases (the transfer times out),
        // or may say dfuDNBUSY with a poll timeout (DFU 1.0 6.1.2): ask again, until
        // it reports the erase's outcome or the bound passes.
        let deadline = ContinuousClock.now + .seconds(Self.eraseTimeoutSeconds)
        while true {
            let s: (status: AtmelDFU.Status, state: AtmelDFU.State, pollTimeoutMilliseconds: Int)
            do { s = try getStatus() } catch {
                guard error == .timeout, ContinuousClock.now < deadline else { throw failure("erasing", error) }
                continue
            }
            if s.state == .downloadBusy {
                guard ContinuousClock.now < deadline else {
                    throw FlashError(.protocolError, "erasing: the bootloader at \(location) was still busy after \(Self.eraseTimeoutSeconds) s")
                }
                usleep(UInt32(min(s.pollTimeoutMilliseconds, 1000)) * 1000)
                continue
            }
            if s.status != .ok { throw refused("erasing the application section", s.status) }
            break
        }
        try blankCheck(start: 0, end: part.applicationBytes - 1)
        progress.report(.erase, part.applicationBytes, part.applicationBytes)
    }

    /// Checks that `start...end` reads erased (0xFF), as the bootloader checks it.
    public func blankCheck(start: Int, end: Int) throws(FlashError) {
        try selectPage(of: start)
        let range = "\(Hex.literal(start, width: 4))...\(Hex.literal(end, width: 4))"
        do { try run(FLIPRequest.blankCheck(start: UInt16(truncatingIfNeeded: start), end: UInt16(truncatingIfNeeded: end)), step: "blank check of \(range)") } catch {
            throw FlashError(error.kind, error.message + " (the erase did not take)")
        }
    }

    public func write(pages: [(address: Int, bytes: [UInt8])], progress: FlashProgress, stop: FlashStop) throws(FlashError) {
        let total = pages.reduce(0) { $0 + $1.bytes.count }
        var done = 0
        progress.report(.write, 0, total)
        for block in Self.blocks(pages) {
            try stop.check("before the block at \(Hex.literal(block.address, width: 4))")
            try selectPage(of: block.address)
            let range = "\(Hex.literal(block.address, width: 4))...\(Hex.literal(block.address + block.bytes.count - 1, width: 4))"
            try run(
                FLIPRequest.programFlash(start: UInt16(truncatingIfNeeded: block.address), data: block.bytes, controlPacketSize: controlPacketSize),
                step: "writing \(range)")
            done += block.bytes.count
            progress.report(.write, done, total)
        }
    }

    public func read(address: Int, count: Int, progress: FlashProgress, stop: FlashStop) throws(FlashError) -> [UInt8] {
        var bytes: [UInt8] = []
        progress.report(.read, 0, count)
        while bytes.count < count {
            let start = address + bytes.count
            try stop.check("before reading back \(Hex.literal(start, width: 4))")
            // A read stays inside one 64 KiB page and one transfer.
            let length = min(count - bytes.count, FLIPRequest.maxTransferBytes, FLIP.pageBytes - start % FLIP.pageBytes)
            let range = "\(Hex.literal(start, width: 4))...\(Hex.literal(start + length - 1, width: 4))"
            try selectPage(of: start)
            try download(
                FLIPRequest.readFlash(start: UInt16(truncatingIfNeeded: start), end: UInt16(truncatingIfNeeded: start + length - 1)),
                step: "reading \(range)")
            let chunk = try upload(length, step: "reading \(range)")
            guard chunk.count == length else {
                throw FlashError(.protocolError, "reading \(range): the bootloader at \(location) returned \(chunk.count) of \(length) bytes")
            }
            bytes += chunk
            progress.report(.read, bytes.count, count)
        }
        return bytes
    }

    /// FLIP's program command on EEPROM (`01 01 start end`, the block as for flash):
    /// LUFA's DFU bootloader writes each byte with eeprom_update_byte, Atmel's likewise
    /// byte by byte; the DNLOAD's status comes once they are written (3.3 ms a byte on
    /// the ATmega32U4, inside the transfer timeout for the serial record).
    public func writeEEPROM(address: Int, bytes: [UInt8]) throws(FlashError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + FLIPRequest.maxTransferBytes)])
            let start = address + offset
            try run(
                FLIPRequest.programEEPROM(start: UInt16(truncatingIfNeeded: start), data: chunk, controlPacketSize: controlPacketSize),
                step: "writing EEPROM \(start)...\(start + chunk.count - 1)")
            offset += chunk.count
        }
    }

    /// FLIP's display command on EEPROM (`03 02 start end`), then UPLOADs.
    public func readEEPROM(address: Int, count: Int) throws(FlashError) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let start = address + bytes.count
            let length = min(count - bytes.count, FLIPRequest.maxTransferBytes)
            let range = "EEPROM \(start)...\(start + length - 1)"
            try download(
                FLIPRequest.readEEPROM(start: UInt16(truncatingIfNeeded: start), end: UInt16(truncatingIfNeeded: start + length - 1)), step: "reading \(range)")
            let chunk = try upload(length, step: "reading \(range)")
            guard chunk.count == length else {
                throw FlashError(.protocolError, "reading \(range): the bootloader at \(location) returned \(chunk.count) of \(length) bytes")
            }
            bytes += chunk
        }
        return bytes
    }

    public func startApplication() throws(FlashError) {
        try run(FLIPRequest.startApplication, step: "starting the application")
        // The zero-length DNLOAD makes the bootloader jump; it may be gone before the
        // transfer is seen to end, which is success too.
        do { _ = try control(AtmelDFU.requestTypeOut, .download, data: []) } catch {
            guard [LibUSBError.noDevice, .io, .pipe, .timeout].contains(error) else { throw failure("starting the application", error) }
        }
        try? handle.releaseInterface(AtmelDFU.interface)
    }

    // MARK: DFU requests

    /// The state machine to dfuIDLE: a previous client may have left it in dfuERROR
    /// (CLRSTATUS) or mid-transfer (ABORT).
    private func makeIdle() throws(FlashError) {
        let (_, state) = try readStatus(step: "opening")
        switch state {
        case .idle: return
        case .error: _ = try? control(AtmelDFU.requestTypeOut, .clearStatus)
        default: _ = try? control(AtmelDFU.requestTypeOut, .abort)
        }
        let (_, now) = try readStatus(step: "opening")
        guard now == .idle else {
            throw FlashError(.protocolError, "the DFU bootloader at \(location) stays in \(now) after CLRSTATUS/ABORT, not dfuIDLE: re-plug the board")
        }
    }

    /// DNLOAD of a command, then GETSTATUS: the command's outcome.
    private func run(_ command: [UInt8], step: String) throws(FlashError) {
        try download(command, step: step)
        let (status, _) = try readStatus(step: step)
        if status != .ok { throw refused(step, status) }
    }

    private func download(_ data: [UInt8], step: String, timeoutMilliseconds: UInt32 = transferTimeoutMilliseconds) throws(FlashError) {
        do { _ = try control(AtmelDFU.requestTypeOut, .download, data: data, timeoutMilliseconds: timeoutMilliseconds) } catch {
            // A command refused as it arrives STALLs its DNLOAD: GETSTATUS says why
            // (errWRITE: a write before the chip erase).
            if error == .pipe, let s = try? readStatus(step: step), s.0 != .ok { throw refused(step, s.0) }
            throw failure(step, error)
        }
    }

    private func upload(_ length: Int, step: String) throws(FlashError) -> [UInt8] {
        do { return try control(AtmelDFU.requestTypeIn, .upload, readLength: length) } catch {
            // A STALLed UPLOAD: GETSTATUS says why (errFILE: read protected).
            if error == .pipe, let s = try? readStatus(step: step), s.0 != .ok { throw refused(step, s.0) }
            throw failure(step, error)
        }
    }

    private func readStatus(step: String) throws(FlashError) -> (AtmelDFU.Status, AtmelDFU.State) {
        do {
            let s = try getStatus()
            return (s.status, s.state)
        } catch { throw failure(step, error) }
    }

    private func getStatus() throws(LibUSBError) -> (status: AtmelDFU.Status, state: AtmelDFU.State, pollTimeoutMilliseconds: Int) {
        let b = try control(AtmelDFU.requestTypeIn, .getStatus, readLength: AtmelDFU.statusLength)
        guard b.count == AtmelDFU.statusLength, let status = AtmelDFU.Status(rawValue: b[0]), let state = AtmelDFU.State(rawValue: b[4]) else {
            throw LibUSBError.io
        }
        return (status, state, Int(b[1]) | Int(b[2]) << 8 | Int(b[3]) << 16)
    }

    private func control(
        _ type: UInt8, _ request: AtmelDFU.Request, data: [UInt8] = [], readLength: Int = 0, timeoutMilliseconds: UInt32 = transferTimeoutMilliseconds
    ) throws(LibUSBError) -> [UInt8] {
        let value: UInt16 = request == .download || request == .upload ? block : 0
        if request == .download || request == .upload { block &+= 1 }
        return try handle.control(
            requestType: type, request: request.rawValue, value: value, index: UInt16(AtmelDFU.interface), data: data, readLength: readLength,
            timeoutMilliseconds: timeoutMilliseconds)
    }

    private func selectPage(of address: Int) throws(FlashError) {
        let page = UInt8(truncatingIfNeeded: address >> 16)
        guard selectedPage != page else { return }
        try download(FLIPRequest.selectPage(page), step: "selecting flash page \(page)")
        selectedPage = page
    }

    /// A command the bootloader refused: its status is cleared so the next command
    /// finds it idle, and the error names the step and the DFU status.
    private func refused(_ step: String, _ status: AtmelDFU.Status) -> FlashError {
        _ = try? control(AtmelDFU.requestTypeOut, .clearStatus)
        // Atmel's factory bootloader starts in a security mode that only a chip erase
        // ends; the bootloader section is locked whatever the mode.
        let hint =
            switch status {
            case .errWrite: ": nothing can be written before a chip erase, nor ever into the bootloader section"
            case .errFile: ": the bootloader allows reads only after a chip erase (its security mode)"
            default: ""
            }
        return FlashError(.protocolError, "\(step): the bootloader at \(location) answered \(status)\(hint)")
    }

    private func failure(_ step: String, _ error: LibUSBError) -> FlashError {
        if error == .noDevice { return FlashError(.gone, "\(step): the bootloader at \(location) went away (unplugged or reset)") }
        return FlashError(.protocolError, "\(step): the bootloader at \(location) did not answer: \(error)" + (error.advice.map { ": \($0)" } ?? ""))
    }

    // MARK: values

    /// Whether a device descriptor is the bootloader's (its VID:PID).
    static func isBootloader(_ d: DeviceDescriptor) -> Bool {
        d.vendorID == BootloaderIdentity.atmega32u4DFU.vendorID && d.productID == BootloaderIdentity.atmega32u4DFU.productID
    }

    /// Pages joined into runs of consecutive addresses, cut at 1 KiB and at 64 KiB
    /// boundaries: one program command each.
    static func blocks(_ pages: [(address: Int, bytes: [UInt8])]) -> [(address: Int, bytes: [UInt8])] {
        var blocks: [(address: Int, bytes: [UInt8])] = []
        for page in pages {
            var at = page.address
            var rest = page.bytes[...]
            while !rest.isEmpty {
                if let last = blocks.last, last.address + last.bytes.count == at, last.bytes.count < FLIPRequest.maxTransferBytes,
                    last.address / FLIP.pageBytes == at / FLIP.pageBytes
                {
                    let n = min(rest.count, FLIPRequest.maxTransferBytes - last.bytes.count, FLIP.pageBytes - at % FLIP.pageBytes)
                    blocks[blocks.count - 1].bytes += rest.prefix(n)
                    rest = rest.dropFirst(n)
                    at += n
                } else {
                    let n = min(rest.count, FLIPRequest.maxTransferBytes, FLIP.pageBytes - at % FLIP.pageBytes)
                    blocks.append((at, Array(rest.prefix(n))))
                    rest = rest.dropFirst(n)
                    at += n
                }
            }
        }
        return blocks
    }
}
