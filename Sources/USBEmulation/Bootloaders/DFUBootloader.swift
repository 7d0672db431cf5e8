import Dispatch
import FirmwareImage
import Flashing
import Synchronization

/// Atmel's USB DFU bootloader on an ATmega32U4 (03EB:2FF4), as a `USBDeviceModel`:
/// USB DFU 1.0's class requests on interface 0 (no endpoints) carrying the FLIP
/// command set, over a `FlashMemory` whose bootloader section is write-protected.
/// Everything is answered at once on the caller's thread (erase and page writes
/// are instant here; a `slow` fault answers program commands late, from a dispatch
/// thread); `hapbridge emulate dfu` puts it behind real libusb.
///
/// What it does, request by request (the facts in `AtmelDFU`):
/// - DNLOAD carries a command; it runs at once and the next GETSTATUS reports OK
///   (state dfuDNLOAD-IDLE) or its error (state dfuERROR until CLRSTATUS).
/// - UPLOAD returns the bytes a read command (`03 00`) selected, continuing where the
///   last UPLOAD stopped, or the byte a read-configuration command (`05`) selected.
/// - A zero-length DNLOAD after `04 03 ..` (start the application, or reset) leaves
///   the bootloader: `left` is called and the device goes off the bus, as the real
///   one does when its watchdog resets the chip into the application.
/// - Writes that reach the bootloader section are refused with errWRITE (the lock
///   bits protect it; the FLIP protocol's "memory is write protected"), pages below
///   it in the same command written; addresses past flash with errADDRESS.
///
/// - Until the first chip erase after power-on the bootloader is in its security
///   mode, as Atmel's factory bootloader is: reads answer errFILE (dfu-programmer:
///   "The device is read protected") and writes errWRITE ("Device is write
///   protected"); the signature, blank check, page select and start still work.
///
/// Not modelled: the EEPROM (its commands answer errTARGET), the real erase's
/// duration (the host polls GETSTATUS; here it is done at once).
public final class DFUBootloader: USBDeviceModel {
    /// Why the bootloader left the bus ("started the application", "reset").
    public typealias Leaving = @Sendable (String) -> Void
    /// The reason given when an armed `unplug` fault took it off the bus.
    public static let unplugged = "was unplugged"

    private let state: Mutex<State>
    private let leaving: Leaving

    struct State {
        var usb: StandardRequests
        var flash: FlashMemory
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
        case byte(UInt8)
    }

    /// What a client did, for the session's summary line.
    public struct Counters: Sendable, Equatable {
        public var erases = 0
        public var pagesWritten = 0
        public var bytesRead = 0
        public var refusals = 0
    }

    /// The device descriptor, configuration and strings of Atmel's bootloader (as
    /// lsusb shows a factory ATmega32U4: "ATMEL" "ATm32U4DFU" "1.0.0", 32-byte EP0).
    static let deviceDescriptor: [UInt8] = [
        18, 1, 0x10, 0x01, 0x00, 0x00, 0x00, 32,
        UInt8(AtmelDFU.vendorID & 0xFF), UInt8(AtmelDFU.vendorID >> 8),
        UInt8(AtmelDFU.productID & 0xFF), UInt8(AtmelDFU.productID >> 8),
        0x00, 0x00, 1, 2, 3, 1,
    ]
    /// One configuration, one interface (class FE application specific, subclass 01
    /// DFU, protocol 00 as DFU 1.0 devices in DFU mode report), no endpoints, and
    /// the DFU functional descriptor: can download and upload, 2 KiB transfers (the
    /// largest DNLOAD dfu-programmer sends is 1 KiB + 48 bytes), DFU 1.1.
    static let configurationDescriptor: [UInt8] = [
        9, 2, 27, 0, 1, 1, 0, 0x80, 50,
        9, 4, AtmelDFU.interface, 0, 0, 0xFE, 0x01, 0x00, 0,
        9, 0x21, 0x03, 0x00, 0x00, 0x00, 0x08, 0x10, 0x01,
    ]
    static let strings: [[UInt8]] = [[4, 3, 0x09, 0x04], stringDescriptor("ATMEL"), stringDescriptor("ATm32U4DFU"), stringDescriptor("1.0.0")]

    /// What read-configuration returns besides the signature: Atmel's boot IDs and a
    /// bootloader version byte.
    static let bootloaderVersion: UInt8 = 0x10
    static let bootID1: UInt8 = 0xDC
    static let bootID2: UInt8 = 0xFB

    /// `flash`: the memory it starts with (the application a board left there).
    public init(flash: FlashMemory, leaving: @escaping Leaving) throws(EmulationError) {
        let usb: StandardRequests
        do {
            usb = try StandardRequests(
                deviceDescriptor: Self.deviceDescriptor, configurationDescriptor: Self.configurationDescriptor, strings: Self.strings)
        } catch { throw .enumeration(board: "dfu", step: "the bootloader's descriptors", detail: error.description) }
        state = Mutex(State(usb: usb, flash: flash))
        self.leaving = leaving
    }

    /// The flash as it is now.
    public var flash: FlashMemory { state.withLock { $0.flash } }
    public var counters: Counters { state.withLock { $0.counters } }

    /// Arms a failure for the first block programmed over `fault.address`.
    public func arm(_ fault: BootloaderFault) { state.withLock { $0.fault = fault } }

    /// Power comes back (a replug after `unplug`): the bootloader starts again from
    /// reset, in its security mode, over the flash as it was left.
    public func powerOn() {
        state.withLock { s in
            let flash = s.flash, counters = s.counters
            var usb = s.usb
            usb.reset()
            s = State(usb: usb, flash: flash)
            s.counters = counters
        }
    }

    public func connect(to host: any USBHostPort) {}

    public func busReset(completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.usb.reset() }
        completion()
    }

    public func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let (result, leave, tripped) = state.withLock { s -> (USBPipeResult, String?, BootloaderFault?) in
            guard s.running else { return (.gone, nil, nil) }
            // DFU requests are class requests to interface 0.
            guard setup.kind == 1 else { return (s.usb.handle(setup, data: data), nil, nil) }
            guard setup.recipient == 1, setup.index == UInt16(AtmelDFU.interface), s.usb.isConfigured,
                let request = AtmelDFU.Request(rawValue: setup.request)
            else { return (.stall, nil, nil) }
            let (result, leave) = Self.handle(request, setup, data, &s)
            defer { s.tripped = nil }
            return (result, leave, s.tripped)
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
        // A slow board: a program command's status stage comes late, and the host waits for it.
        let late = setup.request == AtmelDFU.Request.download.rawValue && data.first == 0x01 && data.count > 1 && data[1] == 0x00
            && state.withLock { $0.slow }
        if late {
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(BootloaderFault.slowAnswerMicroseconds))) { completion(result) }
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
            // DNLOAD-SYNC becomes DNLOAD-IDLE once the host asks (the command is done).
            if s.dfu == .downloadSync { s.dfu = .downloadIdle }
            let status: [UInt8] = [s.status.rawValue, 0, 0, 0, s.dfu.rawValue, 0]
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
            let status = command(data, &s)
            s.status = status
            s.dfu = status == .ok ? .downloadSync : .error
            if status != .ok { s.counters.refusals += 1 }
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
            s.dfu = .uploadIdle
            return (.done(Array([b].prefix(length))), nil)
        case .flash(let next, let end):
            let count = min(length, end - next + 1)
            guard let bytes = try? s.flash.read(address: next, count: count) else {
                s.status = .errAddress
                s.dfu = .error
                return (.stall, nil)
            }
            s.upload = next + count > end ? .none : .flash(next: next + count, end: end)
            s.dfu = .uploadIdle
            s.counters.bytesRead += count
            return (.done(bytes), nil)
        }
    }

    // MARK: FLIP commands

    /// Runs one FLIP command; returns the status GETSTATUS will report.
    private static func command(_ c: [UInt8], _ s: inout State) -> AtmelDFU.Status {
        s.upload = .none
        s.leaveArmed = nil
        func address(_ at: Int) -> Int { s.page << 16 | Int(c[at]) << 8 | Int(c[at + 1]) }
        switch (c[0], c.count > 1 ? c[1] : nil) {
        case (0x01, 0x00) where c.count >= AtmelDFU.programHeaderLength:
            // Program flash: start and end (inclusive) in the header, the data after
            // the 32-byte block, the 16-byte suffix after that (not checked).
            let start = address(2)
            let end = address(4)
            let count = end - start + 1
            guard count > 0, c.count >= AtmelDFU.programHeaderLength + count else { return .errNotDone }
            guard !s.secured else { return .errWrite }
            var data = Array(c[AtmelDFU.programHeaderLength..<(AtmelDFU.programHeaderLength + count)])
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
            return program(start: start, data, &s)
        case (0x03, let kind?) where c.count >= 6 && (kind == 0x00 || kind == 0x01):
            let start = address(2)
            let end = address(4)
            guard start <= end, end < s.flash.part.flashBytes else { return .errAddress }
            if kind == 0x01 { return s.flash.isBlank(from: start, to: end) ? .ok : .errCheckErased }
            guard !s.secured else { return .errFile }
            s.upload = .flash(next: start, end: end)
            return .ok
        case (0x04, 0x00) where c.count >= 3:
            guard c[2] == 0xFF else { return .errTarget }  // only the chip erase on 8-bit parts
            s.flash.eraseApplication()
            s.secured = false
            s.counters.erases += 1
            return .ok
        case (0x04, 0x03) where c.count >= 3:
            // 04 03 00: watchdog reset; 04 03 01 HH LL: jump to the application.
            s.leaveArmed = c[2] == 0x01 ? "started the application" : "reset"
            return .ok
        case (0x05, let group?) where c.count >= 3:
            guard let byte = configuration(group, c[2], s.flash.part) else { return .errTarget }
            s.upload = .byte(byte)
            return .ok
        case (0x06, 0x03) where c.count >= 4:
            guard Int(c[3]) << 16 < s.flash.part.flashBytes else { return .errAddress }
            s.page = Int(c[3])
            return .ok
        default:
            // EEPROM (01 01, 03 02), fuses and the 8051 commands: not modelled.
            return .errTarget
        }
    }

    /// Writes `data` at `start`: every flash page it touches, unwritten bytes 0xFF
    /// (the page buffer's erased state), so SPM's AND leaves them as they were.
    private static func program(start: Int, _ data: [UInt8], _ s: inout State) -> AtmelDFU.Status {
        let pageBytes = s.flash.part.pageBytes
        let end = start + data.count
        guard end <= s.flash.part.flashBytes else { return .errAddress }
        var page = start - start % pageBytes
        while page < end {
            var bytes = [UInt8](repeating: 0xFF, count: pageBytes)
            for a in max(page, start)..<min(page + pageBytes, end) { bytes[a - page] = data[a - start] }
            do throws(FlashMemory.Refusal) {
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

    private static func configuration(_ group: UInt8, _ index: UInt8, _ part: AVRPart) -> UInt8? {
        let selector = (group, index)
        if selector == AtmelDFU.Configuration.bootloaderVersion { return bootloaderVersion }
        if selector == AtmelDFU.Configuration.bootID1 { return bootID1 }
        if selector == AtmelDFU.Configuration.bootID2 { return bootID2 }
        if selector == AtmelDFU.Configuration.productRevision { return 0x00 }
        if let i = AtmelDFU.Configuration.signature.firstIndex(where: { $0 == selector }), i < part.signature.count {
            return part.signature[i]
        }
        return nil
    }

    private static func stringDescriptor(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return [UInt8(2 + 2 * units.count), 3] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }
}
