import AVRBootloaders
import Dispatch
import FirmwareImage
import Synchronization

/// Atmel's USB DFU bootloader on an ATmega32U4 (03EB:2FF4), as a `USBDeviceModel`:
/// USB DFU 1.0's class requests on interface 0 (no endpoints) carrying FLIP protocol
/// version 1's commands (`FLIP`), over a `FlashMemory` whose bootloader section is
/// write-protected; `hapbridge emulate dfu` puts it behind real libusb.
///
/// It answers as the chip does. Where the factory bootloader's behaviour is on record
/// (its descriptors in `lsusb -v`, dfu-programmer's debug logs of real parts, the
/// comments in avrdude's flip1.c) it follows that; elsewhere it follows LUFA's
/// Bootloaders/DFU (BootloaderDFU.c), written as a clone of Atmel's:
///
/// - DNLOAD carries a command; it runs before the request completes (the real one
///   holds the status stage while it programs), and GETSTATUS then reports OK with a
///   1 ms poll timeout in dfuIDLE (a program command: dfuDNLOAD-IDLE; a flash read:
///   dfuUPLOAD-IDLE until its UPLOADs are done), as real parts answer dfu-programmer,
///   or its error in dfuERROR until CLRSTATUS.
/// - Read configuration (`05 GG II`): `00 00`/`01`/`02` the bootloader version and boot
///   IDs; `01 30` the manufacturer code 0x58, `01 31`, `01 60`, `01 61` the signature
///   1E 95 87 (LUFA's ProcessReadCommand; what avrdude's flip1 reads as the signature
///   and dfu-programmer prints as family, product name and revision); another index
///   errADDRESS.
/// - Select page: `06 03 00 PP` (doc7618, dfu-programmer) selects the 64 KiB page; any
///   other `06` form is answered OK and changes nothing, as LUFA's does — avrdude's
///   flip1 sends `06 00 PP`, which on a part of one page selects page 0 either way.
/// - Program (`01 00 start end`, 32-byte command block, `start % 32` filler bytes as
///   LUFA discards them, the bytes, a 16-byte suffix): every page the range touches is
///   erased and written (LUFA erases each page before it fills it), so bytes of those
///   pages outside the range read 0xFF. Pages in the bootloader section are refused
///   with errWRITE (the lock bits), those before them in the same command written;
///   addresses past flash answer errADDRESS.
/// - Until the first chip erase after power-on the bootloader is in its security mode:
///   a program command STALLs with errWRITE (dfu-programmer: "Device is write
///   protected", as users of real parts report it), a flash read answers errFILE
///   (dfu-programmer: "The device is read protected"); the configuration, the erase,
///   the blank check, page select and start still work.
/// - A zero-length DNLOAD after `04 03 ..` (start the application, or reset) leaves the
///   bootloader: `left` is called and the device goes off the bus.
///
/// Time: a page erase or write takes the part's self-programming time (`AVRPart`), and
/// a command's request completes when the pages it erased and wrote would have been
/// done: the chip erase 224 page erases (the application section), a 1 KiB program
/// command 8 erases and 8 writes. Not modelled: the EEPROM (its commands answer
/// errTARGET); after a chip erase avrdude's flip1.c says real parts answer 0xFF to
/// configuration reads until power-cycled, which this model does not.
public final class DFUBootloader: USBDeviceModel {
    /// Why the bootloader left the bus ("started the application", "reset").
    public typealias Leaving = @Sendable (String) -> Void
    /// The reason given when an armed `unplug` fault took it off the bus.
    public static let unplugged = "was unplugged"

    private let state: Mutex<State>
    private let leaving: Leaving
    /// Where a request the chip is busy with waits for its completion.
    private let busy = DispatchQueue(label: "hapbridge.dfu.programming")

    struct State {
        var usb: StandardRequests
        var flash: FlashMemory
        /// The part's data EEPROM, kept across power cycles as the flash is.
        var eeprom: [UInt8]
        /// EEPROM bytes written that the request in hand has not answered for.
        var eepromWrites = 0
        var dfu: AtmelDFU.State = .idle
        var status: AtmelDFU.Status = .ok
        /// What UPLOAD returns next.
        var upload: Upload = .none
        /// The 64 KiB page 16-bit addresses fall in (`06 03 00 P`).
        var page: Int = 0
        /// `04 03 ..` was received: the next zero-length DNLOAD leaves the bootloader.
        var leaveArmed: String?
        /// The security mode: reads and writes refused until a chip erase.
        var secured = true
        var running = true
        var counters = Counters()
        /// Armed: the first program command over its address fails this way (the same
        /// three failures as Caterina's: unplug, silence, corrupt); fires once.
        var fault: BootloaderFault?
        var tripped: BootloaderFault?
        /// A `slow` fault fired: every program command from then on is answered late.
        var slow = false
    }

    enum Upload {
        case none
        /// Flash bytes `next...end` (inclusive) still to return.
        case flash(next: Int, end: Int)
        /// EEPROM bytes `next...end` (inclusive) still to return.
        case eeprom(next: Int, end: Int)
        case byte(UInt8)
    }

    /// What a client did, for the session's summary line.
    public struct Counters: Sendable, Equatable {
        public var erases = 0
        public var pagesWritten = 0
        public var bytesRead = 0
        public var refusals = 0
    }

    /// Endpoint 0's packet size: the device descriptor's bMaxPacketSize0, and the unit
    /// a program command's data is aligned to.
    static let controlPacketSize = 32
    /// GETSTATUS's bwPollTimeout: real parts report 1 ms (dfu-programmer's debug logs).
    static let pollTimeoutMilliseconds: UInt8 = 1

    /// The descriptors of a real ATmega32U4's factory bootloader as `lsusb -v` shows one:
    /// USB 2.00; class FF, subclass 01, protocol 00 at the device; 32-byte endpoint 0;
    /// bcdDevice 0.00; strings 1, 2, 3 ("ATMEL", "ATm32U4DFU", "1.0.0", as the kernel
    /// logs them); one configuration (bus powered, 100 mA) of 18 bytes: one interface
    /// whose class, subclass and protocol are 0, no endpoints and no DFU functional
    /// descriptor. (avrdude's flip1.c expects FE at the device and warns of 255 on real
    /// parts too — "USB bDeviceClass = 255 (expected 254)" from an ATmega32U4 in its
    /// factory DFU, and "bDeviceClass = 255 … bDeviceSubClass = 1" from an ATmega32U2's,
    /// as users of avrdude report them; it notes the interface's zeros, against doc7618.
    /// dfu-programmer takes the first interface of the 8-bit parts whatever its class.)
    static let deviceDescriptor: [UInt8] = [
        18, 1, 0x00, 0x02, 0xFF, 0x01, 0x00, UInt8(controlPacketSize),
        UInt8(BootloaderIdentity.atmega32u4DFU.vendorID & 0xFF), UInt8(BootloaderIdentity.atmega32u4DFU.vendorID >> 8),
        UInt8(BootloaderIdentity.atmega32u4DFU.productID & 0xFF), UInt8(BootloaderIdentity.atmega32u4DFU.productID >> 8),
        0x00, 0x00, 1, 2, 3, 1,
    ]
    static let configurationDescriptor: [UInt8] = [
        9, 2, 18, 0, 1, 1, 0, 0x80, 50,
        9, 4, AtmelDFU.interface, 0, 0, 0x00, 0x00, 0x00, 0,
    ]
    static let strings: [[UInt8]] = [
        [4, 3, 0x09, 0x04], stringDescriptor(BootloaderIdentity.atmega32u4DFU.manufacturer),
        stringDescriptor(BootloaderIdentity.atmega32u4DFU.product), stringDescriptor("1.0.0"),
    ]

    /// What read configuration answers besides the signature: the bootloader version and
    /// the boot IDs (LUFA's BOOTLOADER_ID_BYTE1/2, Atmel's), and the manufacturer code.
    static let bootloaderVersion: UInt8 = 0x10
    static let bootID1: UInt8 = 0xDC
    static let bootID2: UInt8 = 0xFB
    static let manufacturerCode: UInt8 = 0x58

    /// The bootloader section as the chip holds it: code whose constant data carries its
    /// device descriptor (03EB:2FF4 little-endian, what the bridge firmware's boot section
    /// scan finds, `hb_bootloader_kind`), the rest erased.
    public static let bootSection: [UInt8] = [0x0C, 0x94, 0x00, 0x38, 0x11, 0x24] + deviceDescriptor

    /// `flash`: the memory it starts with (the application a board left there).
    /// `eeprom`: what the part's EEPROM holds (nil: erased, the part's size).
    public init(flash: FlashMemory, eeprom: [UInt8]? = nil, leaving: @escaping Leaving) throws(EmulationError) {
        let usb: StandardRequests
        do {
            usb = try StandardRequests(
                deviceDescriptor: Self.deviceDescriptor, configurationDescriptor: Self.configurationDescriptor, strings: Self.strings)
        } catch { throw .enumeration(board: "dfu", step: "the bootloader's descriptors", detail: error.description) }
        var flash = flash
        // What was written before the board came up was done before the host came.
        flash.forgetSelfProgramming()
        let size = flash.part.eepromBytes
        let held = eeprom ?? []
        state = Mutex(State(usb: usb, flash: flash, eeprom: Array(held.prefix(size)) + [UInt8](repeating: 0xFF, count: max(0, size - held.count))))
        self.leaving = leaving
    }

    /// The flash as it is now.
    public var flash: FlashMemory { state.withLock { $0.flash } }
    public var counters: Counters { state.withLock { $0.counters } }
    /// The EEPROM as it is now.
    public var eeprom: [UInt8] { state.withLock { $0.eeprom } }

    /// Arms a failure for the first block programmed over `fault.address`.
    public func arm(_ fault: BootloaderFault) { state.withLock { $0.fault = fault } }

    /// Power comes back (a replug after `unplug`): the bootloader starts again from
    /// reset, in its security mode, over the flash as it was left.
    public func powerOn() {
        state.withLock { s in
            let flash = s.flash, counters = s.counters, eeprom = s.eeprom
            var usb = s.usb
            usb.reset()
            s = State(usb: usb, flash: flash, eeprom: eeprom)
            s.counters = counters
        }
    }

    public func connect(to host: any USBHostPort) {}

    public func busReset(completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.usb.reset() }
        completion()
    }

    public func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let arrived = ChipTime.now()
        let (result, leave, tripped, programming) = state.withLock { s -> (USBPipeResult, String?, BootloaderFault?, UInt64) in
            guard s.running else { return (.gone, nil, nil, 0) }
            // DFU requests are class requests to interface 0.
            guard setup.kind == 1 else { return (s.usb.handle(setup, data: data), nil, nil, 0) }
            guard setup.recipient == 1, setup.index == UInt16(AtmelDFU.interface), s.usb.isConfigured,
                let request = AtmelDFU.Request(rawValue: setup.request)
            else { return (.stall, nil, nil, 0) }
            let (result, leave) = Self.handle(request, setup, data, &s)
            defer { s.tripped = nil }
            // The request completes when the flash is done with it.
            var busy = s.flash.takeSelfProgrammingMicroseconds() + UInt64(s.eepromWrites) * UInt64(s.flash.part.eepromWriteMicroseconds)
            s.eepromWrites = 0
            // A slow board: a program command's status stage comes late as well.
            if s.slow, request == .download, data.first == FLIP.Command.programStart.rawValue { busy += UInt64(BootloaderFault.slowAnswerMicroseconds) }
            return (result, leave, s.tripped, busy)
        }
        switch tripped?.kind {
        case .unplug?:
            // Power lost as the block arrived: nothing written, the device gone.
            state.withLock { $0.running = false }
            completion(.gone)
            leaving(Self.unplugged)
            return
        case .silence?:
            return  // written, but the status stage never comes: the host times out
        default:
            break
        }
        if programming > 0 {
            busy.async {
                ChipTime.sleep(untilMicroseconds: arrived + programming)
                completion(result)
            }
            return
        }
        completion(result)
        if let leave {
            state.withLock { $0.running = false }
            leaving(leave)
        }
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        completion(.stall)  // no endpoints besides 0
    }

    public func setPolling(endpoint: UInt8, active: Bool) {}

    public func powerOff() {
        state.withLock { $0.running = false }
    }

    // MARK: DFU 1.0

    /// One DFU request; returns the answer and, when the bootloader leaves, why.
    private static func handle(_ request: AtmelDFU.Request, _ setup: USBSetupPacket, _ data: [UInt8], _ s: inout State) -> (USBPipeResult, String?) {
        let isIn = setup.isDeviceToHost
        switch request {
        case .getStatus where isIn:
            let status: [UInt8] = [s.status.rawValue, pollTimeoutMilliseconds, 0, 0, s.dfu.rawValue, 0]
            return (.done(Array(status.prefix(Int(setup.length)))), nil)
        case .getState where isIn:
            return (.done(Array([s.dfu.rawValue].prefix(Int(setup.length)))), nil)
        case .clearStatus where !isIn:
            s.status = .ok
            s.dfu = .idle
            s.upload = .none
            return (.done([]), nil)
        case .abort where !isIn:
            // DFU 1.0: ABORT returns to dfuIDLE from every idle state, but not from dfuERROR.
            guard s.dfu != .error else { return (.stall, nil) }
            s.dfu = .idle
            s.upload = .none
            s.leaveArmed = nil
            return (.done([]), nil)
        case .download where !isIn:
            // The Atmel bootloader takes a command in any state but dfuERROR (clients
            // send the next one without GETSTATUS, or after an UPLOAD).
            guard s.dfu != .error else { return stalled(&s) }
            if data.isEmpty {
                // The end of a download: with `04 03` before it, the bootloader leaves.
                if let why = s.leaveArmed { return (.done([]), why) }
                s.dfu = .idle
                return (.done([]), nil)
            }
            let outcome = command(data, &s)
            s.status = outcome.status
            if outcome.status != .ok {
                s.dfu = .error
                s.counters.refusals += 1
                // A refusal the bootloader makes as the data arrives STALLs the request.
                return (outcome.stalls ? .stall : .done([]), nil)
            }
            s.dfu = outcome.state
            return (.done([]), nil)
        case .upload where isIn:
            guard s.dfu != .error else { return stalled(&s) }
            return upload(length: Int(setup.length), &s)
        default:
            return stalled(&s)
        }
    }

    /// A request the state does not allow: STALL, and errSTALLEDPKT until CLRSTATUS.
    private static func stalled(_ s: inout State) -> (USBPipeResult, String?) {
        if s.dfu != .error {
            s.status = .errStalledPacket
            s.dfu = .error
        }
        return (.stall, nil)
    }

    private static func upload(length: Int, _ s: inout State) -> (USBPipeResult, String?) {
        switch s.upload {
        case .none:
            return stalled(&s)
        case .byte(let b):
            s.upload = .none
            s.dfu = .idle
            return (.done(Array([b].prefix(length))), nil)
        case .flash(let next, let end):
            let count = min(length, end - next + 1)
            guard let bytes = try? s.flash.read(address: next, count: count) else {
                s.status = .errAddress
                s.dfu = .error
                return (.stall, nil)
            }
            s.upload = next + count > end ? .none : .flash(next: next + count, end: end)
            s.dfu = next + count > end ? .idle : .uploadIdle
            s.counters.bytesRead += count
            return (.done(bytes), nil)
        case .eeprom(let next, let end):
            let count = min(length, end - next + 1)
            let bytes = Array(s.eeprom[next..<(next + count)])
            s.upload = next + count > end ? .none : .eeprom(next: next + count, end: end)
            s.dfu = next + count > end ? .idle : .uploadIdle
            return (.done(bytes), nil)
        }
    }

    // MARK: FLIP commands

    /// What a command did: its status, the state GETSTATUS reports after it, and
    /// whether a refusal STALLs the request itself.
    struct Outcome {
        var status: AtmelDFU.Status
        var state: AtmelDFU.State = .idle
        var stalls = false
        static let ok = Outcome(status: .ok)
        static func refused(_ status: AtmelDFU.Status, stalls: Bool = false) -> Outcome { Outcome(status: status, state: .error, stalls: stalls) }
    }

    /// Runs one FLIP command.
    private static func command(_ c: [UInt8], _ s: inout State) -> Outcome {
        s.upload = .none
        s.leaveArmed = nil
        func address(_ at: Int) -> Int { s.page << 16 | Int(c[at]) << 8 | Int(c[at + 1]) }
        let command = FLIP.Command(rawValue: c[0])
        let operand = c.count > 1 ? c[1] : nil
        switch (command, operand) {
        case (.programStart?, FLIP.Memory.flash.rawValue?) where c.count >= FLIP.commandBlockBytes:
            // Refused as it arrives in the security mode: the data stage STALLs.
            guard !s.secured else { return .refused(.errWrite, stalls: true) }
            // Start and end (inclusive) in the header; after the 32-byte command block
            // `start % 32` filler bytes, the data, then the suffix (not checked).
            let start = address(2)
            let end = address(4)
            let count = end - start + 1
            let first = FLIP.commandBlockBytes + start % controlPacketSize
            guard count > 0, c.count >= first + count else { return .refused(.errNotDone) }
            var data = Array(c[first..<(first + count)])
            if let f = s.fault, (start...end).contains(f.address) {
                s.fault = nil
                s.tripped = f
                switch f.kind {
                case .unplug: return .ok  // nothing written: the caller takes the device off the bus
                case .silence: break
                case .corrupt: data[f.address - start] ^= 0x01
                case .slow: s.slow = true
                }
            }
            let status = program(start: start, data, &s)
            return status == .ok ? Outcome(status: .ok, state: .downloadIdle) : .refused(status)
        case (.programStart?, FLIP.Memory.eeprom.rawValue?) where c.count >= FLIP.commandBlockBytes:
            // LUFA's DFU bootloader: the same block and filler as for flash, each byte
            // then written with eeprom_update_byte at its 16-bit address (no 64 KiB page).
            guard !s.secured else { return .refused(.errWrite, stalls: true) }
            let start = Int(c[2]) << 8 | Int(c[3])
            let end = Int(c[4]) << 8 | Int(c[5])
            let count = end - start + 1
            let first = FLIP.commandBlockBytes + start % controlPacketSize
            guard count > 0, c.count >= first + count else { return .refused(.errNotDone) }
            guard end < s.eeprom.count else { return .refused(.errAddress) }
            for (i, b) in c[first..<(first + count)].enumerated() where s.eeprom[start + i] != b {
                // eeprom_update_byte writes only a byte that differs.
                s.eeprom[start + i] = b
                s.eepromWrites += 1
            }
            return Outcome(status: .ok, state: .downloadIdle)
        case (.displayData?, FLIP.Display.eeprom.rawValue?) where c.count >= 6:
            let start = Int(c[2]) << 8 | Int(c[3])
            let end = Int(c[4]) << 8 | Int(c[5])
            guard start <= end, end < s.eeprom.count else { return .refused(.errAddress) }
            guard !s.secured else { return .refused(.errFile) }
            s.upload = .eeprom(next: start, end: end)
            return Outcome(status: .ok, state: .uploadIdle)
        case (.displayData?, let kind?) where c.count >= 6 && (kind == FLIP.Display.flash.rawValue || kind == FLIP.Display.blankCheck.rawValue):
            let start = address(2)
            let end = address(4)
            guard start <= end, end < s.flash.part.flashBytes else { return .refused(.errAddress) }
            if kind == FLIP.Display.blankCheck.rawValue { return s.flash.isBlank(from: start, to: end) ? .ok : .refused(.errCheckErased) }
            guard !s.secured else { return .refused(.errFile) }
            s.upload = .flash(next: start, end: end)
            return Outcome(status: .ok, state: .uploadIdle)
        case (.writeCommand?, FLIP.WriteOperation.erase.rawValue?) where c.count >= 3:
            guard c[2] == FLIP.eraseAll else { return .refused(.errTarget) }  // only the chip erase on 8-bit parts
            // Page by page, as SPM erases (LUFA's loop of BootloaderAPI_ErasePage).
            s.flash.eraseApplication()
            s.secured = false
            s.counters.erases += 1
            return .ok
        case (.writeCommand?, FLIP.WriteOperation.startApplication.rawValue?) where c.count >= 3:
            s.leaveArmed = c[2] == FLIP.Start.jump.rawValue ? "started the application" : "reset"
            return .ok
        case (.readCommand?, let group?) where c.count >= 3:
            switch configuration(FLIP.Configuration(group, c[2]), s.flash.part) {
            case .byte(let b):
                s.upload = .byte(b)
                return .ok
            case .noSuchIndex: return .refused(.errAddress)
            case .noSuchGroup: return .refused(.errTarget)
            }
        case (.changeBaseAddress?, _):
            // Only doc7618's form selects a page; LUFA answers every other form OK and
            // leaves the page as it was. A page past the flash leaves later addresses
            // past it, which their commands refuse.
            if Array(c.dropFirst().prefix(2)) == FLIP.selectPage, c.count >= 4 { s.page = Int(c[3]) }
            return .ok
        default:
            // Fuses and the 8051 commands: not modelled.
            return .refused(.errTarget)
        }
    }

    enum ConfigurationAnswer {
        case byte(UInt8), noSuchIndex, noSuchGroup
    }

    /// Read configuration as the chip answers it (LUFA's ProcessReadCommand, whose
    /// manufacturer code and signature indices are Atmel's).
    private static func configuration(_ selector: FLIP.Configuration, _ part: AVRPart) -> ConfigurationAnswer {
        switch selector {
        case .bootloaderVersion: return .byte(bootloaderVersion)
        case .bootID1: return .byte(bootID1)
        case .bootID2: return .byte(bootID2)
        case .manufacturerCode: return .byte(manufacturerCode)
        case .familyCode: return part.signature.count > 0 ? .byte(part.signature[0]) : .noSuchIndex
        case .productName: return part.signature.count > 1 ? .byte(part.signature[1]) : .noSuchIndex
        case .productRevision: return part.signature.count > 2 ? .byte(part.signature[2]) : .noSuchIndex
        default: return selector.group <= 0x01 ? .noSuchIndex : .noSuchGroup
        }
    }

    /// Writes `data` at `start` as LUFA does: each page the range touches erased, its
    /// page buffer filled (bytes outside the range stay 0xFF, the buffer's erased state)
    /// and written.
    private static func program(start: Int, _ data: [UInt8], _ s: inout State) -> AtmelDFU.Status {
        let pageBytes = s.flash.part.pageBytes
        let end = start + data.count
        guard end <= s.flash.part.flashBytes else { return .errAddress }
        var page = start - start % pageBytes
        while page < end {
            var bytes = [UInt8](repeating: 0xFF, count: pageBytes)
            for a in max(page, start)..<min(page + pageBytes, end) { bytes[a - page] = data[a - start] }
            do throws(FlashMemory.Refusal) {
                try s.flash.erasePage(at: page)
                try s.flash.writePage(at: page, bytes)
                s.counters.pagesWritten += 1
            } catch {
                switch error {
                case .bootloaderSection: return .errWrite
                case .outOfRange: return .errAddress
                }
            }
            page += pageBytes
        }
        return .ok
    }

    private static func stringDescriptor(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return [UInt8(2 + 2 * units.count), 3] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }
}
