import AVRBootloaders
import FileAccess
import FirmwareImage
import Hex

/// Caterina, the bootloader of the Leonardo, Micro and Pro Micro, as a byte-in,
/// bytes-out engine over a `FlashMemory`: AVR109 ("butterfly", the letters in
/// `AVR109`) as Arduino's Caterina.c answers it, the commands avrdude's avr109
/// programmer sends and the ones it may:
///
/// - ESC: ignored (avrdude's synchronisation); unknown commands answer '?'.
/// - 'S' "CATERIN", 'V' "10", 'p' 'S' (serial programmer), 'a' 'Y' (auto-increment),
///   'b' 'Y' and the block size (one page, big-endian), 't' the device list (0x44, 0),
///   's' the signature in reverse (0x87 0x95 0x1E on the 32U4); 'v' is not Caterina's: '?'.
/// - 'T' device, 'P' / 'L' enter / leave programming, 'x' / 'y' LED: '\r'.
/// - 'A' high low: the *word* address; 'e': every page of the application section
///   erased and written blank (Caterina.c's boot_page_erase and boot_page_write).
/// - 'B' size(BE16) memory data: a flash block is one page erase, fill and write at the
///   address (the address then moves on by the block); an EEPROM ('E') block writes
///   its bytes one eeprom_write_byte each.
/// - 'g' size(BE16) memory: read a block from the address, which moves on by it.
/// - EEPROM addressing is Caterina.c's: 'A' stores the word address shifted left (its
///   CurrAddress), an EEPROM byte is at CurrAddress >> 1 (so the number the host sent
///   is the EEPROM byte address, as avrdude's avr109 sends it) and CurrAddress moves
///   on by 2 per byte; a memory type other than 'F' or 'E' answers '?'.
/// - 'r' lock bits, 'F' / 'N' / 'Q' fuses: read only, as the boards ship them.
/// - 'E': '\r', and the bootloader leaves (`exited`).
///
/// The bootloader section is protected by the lock bits the boards ship with (BLB1
/// mode 2/3: SPM cannot write it): a page erase or write there does nothing, the
/// command is still answered '\r' as Caterina answers every block (it does not check),
/// and the read-back shows the bootloader's own code. `writesRefused` counts them.
///
/// Time: Caterina answers a command once its self-programming is done (it waits on
/// boot_spm_busy_wait before the '\r'), so each reply says how long the flash kept the
/// chip busy before it (`Reply.busyMicroseconds`: a block write two page operations,
/// the chip erase two for each of the 224 application pages, an EEPROM block the part's
/// EEPROM write time per byte, as eeprom_write_byte waits for the byte before).
public struct CaterinaBootloader: Sendable {
    public private(set) var flash: FlashMemory
    /// The part's data EEPROM: the board's own, kept across its resets by whoever
    /// holds the board (`BridgeEmulation`), erased (0xFF) on a new part.
    public private(set) var eeprom: [UInt8]
    /// EEPROM byte writes not yet answered for (each `AVRPart.eepromWriteMicroseconds`).
    private var unansweredEEPROMWrites = 0
    /// The byte address the next block reads or writes ('A' sets it in words).
    public private(set) var address = 0
    /// Set by 'E': the application would start now.
    public private(set) var exited = false
    /// Flash pages a block write or erase could not change (the bootloader section).
    public private(set) var writesRefused = 0
    /// Commands answered, by letter (for the emulation's summary and tests).
    public private(set) var commandCount = 0
    /// The application section was erased or written since the board last left the
    /// bootloader with 'E': a write that did not finish leaves it so.
    public private(set) var applicationChanged = false
    /// The application section was erased or written in this session, 'E' or not.
    public private(set) var applicationWritten = false
    /// A failure to act out at the next block write that covers its address (once).
    public var fault: BootloaderFault?
    /// The fault that fired, for the emulation to act on (`takeTripped`).
    public private(set) var tripped: BootloaderFault?
    /// A `slow` fault fired: every flash block written from then on is answered late.
    public private(set) var slow = false
    /// Answers to flash blocks of the command in hand that are due late.
    private var lateAnswers = 0
    private var pending: [UInt8] = []

    /// The bootloader section as a Caterina board holds it: code whose constant data
    /// carries the identifier 'S' answers (what the bridge firmware's boot section scan
    /// finds, `hb_bootloader_kind`), the rest erased.
    public static let bootSection: [UInt8] = [0x0C, 0x94, 0x00, 0x38, 0x0C, 0x94, 0x1A, 0x38, 0x11, 0x24] + identifier + [0x00]

    public static let identifier = Array("CATERIN".utf8)
    public static let version = Array("10".utf8)
    /// 'p': a serial programmer. 't': the one device code Caterina lists (0x44), then the end.
    static let programmerType = UInt8(ascii: "S")
    static let deviceCodes: [UInt8] = [0x44, 0x00]
    /// Lock bits and fuses of a Pro Micro as shipped (bootloader section locked, 4 KiB
    /// boot size, boot reset vector): what 'r', 'F', 'N', 'Q' answer.
    public static let lockBits: UInt8 = 0xEF
    public static let fuses = (low: UInt8(0xFF), high: UInt8(0xD8), extended: UInt8(0xCB))

    /// `eeprom`: what the board's EEPROM holds (nil: erased, the part's size).
    public init(flash: FlashMemory, eeprom: [UInt8]? = nil) {
        self.flash = flash
        // What was written before the board came up was done before the host came.
        self.flash.forgetSelfProgramming()
        let size = flash.part.eepromBytes
        let held = eeprom ?? []
        self.eeprom = Array(held.prefix(size)) + [UInt8](repeating: 0xFF, count: max(0, size - held.count))
    }

    /// Answers, each due once the chip has been busy for `busyMicroseconds` after the
    /// one before it (its page erases and writes, and a `slow` fault's delay).
    public struct Reply: Sendable, Equatable {
        public var busyMicroseconds: UInt64
        public var bytes: [UInt8]
        public init(busyMicroseconds: UInt64, bytes: [UInt8]) {
            self.busyMicroseconds = busyMicroseconds
            self.bytes = bytes
        }
    }

    /// Takes bytes as they arrive (a command may come in pieces) and returns the answers
    /// to every command completed by them.
    public mutating func receive(_ bytes: [UInt8]) -> [UInt8] {
        replies(to: bytes).flatMap(\.bytes)
    }

    /// `receive`, with when each answer is due: consecutive answers that cost no time
    /// are one reply.
    public mutating func replies(to bytes: [UInt8]) -> [Reply] {
        pending += bytes
        var replies: [Reply] = []
        var start = 0
        // Nothing after an unplug is heard.
        while start < pending.count, tripped?.kind != .unplug {
            var out: [UInt8] = []
            guard let used = step(pending[start...], into: &out) else { break }
            start += used
            // A slow board: a flash block's answer comes late as well.
            let busy = flash.takeSelfProgrammingMicroseconds() + UInt64(lateAnswers) * UInt64(BootloaderFault.slowAnswerMicroseconds)
                + UInt64(unansweredEEPROMWrites) * UInt64(flash.part.eepromWriteMicroseconds)
            lateAnswers = 0
            unansweredEEPROMWrites = 0
            if busy == 0, let last = replies.indices.last {
                replies[last].bytes += out
            } else if busy > 0 || !out.isEmpty {
                replies.append(Reply(busyMicroseconds: busy, bytes: out))
            }
        }
        pending.removeFirst(start)
        return replies
    }

    /// One command from the front of `input`: the bytes it used, or nil when it is not complete yet.
    private mutating func step(_ input: ArraySlice<UInt8>, into out: inout [UInt8]) -> Int? {
        let b = Array(input.prefix(4))
        guard let first = b.first else { return nil }
        func needs(_ n: Int) -> Bool { input.count >= n }
        guard let command = AVR109.Command(rawValue: first) else {
            commandCount += 1
            out.append(AVR109.unknownCommand)
            return 1
        }
        switch command {
        case .resynchronise: return 1
        case .softwareIdentifier: out += Self.identifier
        case .softwareVersion: out += Self.version
        case .programmerType: out.append(Self.programmerType)
        case .autoIncrement: out.append(AVR109.yes)
        case .blockSupport:
            out += [AVR109.yes, UInt8(flash.part.pageBytes >> 8), UInt8(flash.part.pageBytes & 0xFF)]
        case .deviceCodes: out += Self.deviceCodes
        case .readSignature: out += flash.part.signature.reversed()
        case .enterProgramming, .leaveProgramming: out.append(AVR109.acknowledge)
        case .readLockBits: out.append(Self.lockBits)
        case .readLowFuse: out.append(Self.fuses.low)
        case .readHighFuse: out.append(Self.fuses.high)
        case .readExtendedFuse: out.append(Self.fuses.extended)
        case .selectDevice, .setLED, .clearLED, .writeLockBits:
            guard needs(2) else { return nil }
            commandCount += 1
            out.append(AVR109.acknowledge)
            return 2
        case .exitBootloader:
            exited = true
            applicationChanged = false
            out.append(AVR109.acknowledge)
        case .chipErase:
            applicationChanged = true
            applicationWritten = true
            // Caterina.c erases and then writes each page (an empty page buffer).
            let blank = [UInt8](repeating: 0xFF, count: flash.part.pageBytes)
            for page in stride(from: 0, to: flash.part.bootloaderStart, by: flash.part.pageBytes) {
                do {
                    try flash.erasePage(at: page)
                    try flash.writePage(at: page, blank)
                } catch { writesRefused += 1 }
            }
            out.append(AVR109.acknowledge)
        case .setAddress:
            guard needs(3) else { return nil }
            commandCount += 1
            address = (Int(b[1]) << 8 | Int(b[2])) << 1
            out.append(AVR109.acknowledge)
            return 3
        case .blockRead:
            guard needs(4) else { return nil }
            commandCount += 1
            let size = Int(b[1]) << 8 | Int(b[2])
            out += readBlock(memory: b[3], size: size)
            return 4
        case .blockWrite:
            guard needs(4) else { return nil }
            let size = Int(b[1]) << 8 | Int(b[2])
            guard needs(4 + size) else { return nil }
            commandCount += 1
            var data = Array(input.dropFirst(4).prefix(size))
            let isFlash = b[3] == AVR109.Memory.flash.rawValue
            if isFlash, let f = fault, (address..<(address + size)).contains(f.address) {
                fault = nil
                tripped = f
                switch f.kind {
                case .unplug:
                    return 4 + size  // the power went before the page was written
                case .silence:
                    _ = writeBlock(memory: b[3], data: data)  // written, but the answer is lost
                    return 4 + size
                case .corrupt:
                    data[f.address - address] ^= 0x01  // stored with one bit wrong
                case .slow:
                    slow = true
                }
            }
            if slow, isFlash { lateAnswers += 1 }
            out.append(writeBlock(memory: b[3], data: data))
            return 4 + size
        case .hardwareVersion:
            // Caterina.c has no 'v': it answers '?' as to every letter it does not know.
            out.append(AVR109.unknownCommand)
        }
        commandCount += 1
        return 1
    }

    /// The fault that fired since the last call, if any.
    public mutating func takeTripped() -> BootloaderFault? {
        defer { tripped = tripped?.kind == .unplug ? tripped : nil }
        return tripped
    }

    private mutating func readBlock(memory: UInt8, size: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size)
        for _ in 0..<size {
            if memory == AVR109.Memory.flash.rawValue {
                out.append(address < flash.bytes.count ? flash.bytes[address] : 0xFF)
                address += 1
            } else if memory == AVR109.Memory.eeprom.rawValue {
                // Caterina.c: eeprom_read_byte(CurrAddress >> 1); the EEPROM address
                // wraps inside the part as the chip's EEAR does.
                out.append(eeprom[(address >> 1) % eeprom.count])
                address += 2
            } else {
                return [AVR109.unknownCommand]
            }
        }
        return out
    }

    private mutating func writeBlock(memory: UInt8, data: [UInt8]) -> UInt8 {
        switch memory {
        case AVR109.Memory.flash.rawValue:
            applicationChanged = true
            applicationWritten = true
            // One page erase, the page buffer filled from the address (the latches wrap
            // inside the page, as SPM's do), one page write.
            let pageBytes = flash.part.pageBytes
            let page = address - address % pageBytes
            var buffer = [UInt8](repeating: 0xFF, count: pageBytes)
            for (i, byte) in data.enumerated() { buffer[(address - page + i) % pageBytes] = byte }
            do {
                try flash.erasePage(at: page)
                try flash.writePage(at: page, buffer)
            } catch { writesRefused += 1 }
            address += data.count
            return AVR109.acknowledge
        case AVR109.Memory.eeprom.rawValue:
            // Caterina.c: eeprom_write_byte(CurrAddress >> 1, byte); CurrAddress += 2.
            for byte in data {
                eeprom[(address >> 1) % eeprom.count] = byte
                address += 2
                unansweredEEPROMWrites += 1
            }
            return AVR109.acknowledge
        default:
            return AVR109.unknownCommand
        }
    }
}

/// A failure an emulated bootloader acts out once, at the first block written over
/// `address` (Caterina's 'B' … 'F', Atmel DFU's program command): how `flash` is tried
/// against an interrupted write (`hapbridge emulate control fault …`, `emulate dfu --fault`).
public struct BootloaderFault: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// The board loses power as the block arrives: it is not written and the
        /// board leaves the bus.
        case unplug
        /// The block is written but its answer never comes (the host times out).
        case silence
        /// The block is stored with one bit of the byte at `address` flipped (the
        /// read-back differs).
        case corrupt
        /// Every block written from this one on is answered `slowAnswerMicroseconds`
        /// late (a slow board), well inside a host's answer timeout: time to
        /// interrupt a flash by hand, or to signal it from a test.
        case slow
    }
    /// How late a `slow` board answers each block: far below `hapbridge flash`'s answer
    /// timeouts (2 s for Caterina's, 2 s per DFU control transfer).
    public static let slowAnswerMicroseconds: UInt32 = 250_000
    public var kind: Kind
    public var address: Int
    public init(_ kind: Kind, at address: Int) {
        self.kind = kind
        self.address = address
    }
    public var description: String { "\(kind.rawValue) at \(Hex.literal(address, width: 4))" }

    /// `KIND ADDRESS` words (`unplug 0x1000`): nil with the reason when they are not one.
    public static func parse(kind kindWord: String, address addressWord: String) -> Result<BootloaderFault, ParseError> {
        guard let kind = Kind(rawValue: kindWord) else {
            return .failure(ParseError(description: "\(TerminalText.echo(kindWord)) is not unplug, silence, corrupt or slow"))
        }
        let address = addressWord.lowercased().hasPrefix("0x") ? Hex.value(addressWord.dropFirst(2), as: Int.self) : Int(addressWord)
        guard let address, address >= 0, address < 0x8000 else {
            return .failure(ParseError(description: "\(TerminalText.echo(addressWord)) is not a flash address (0 to 0x7FFF, decimal or 0x hex)"))
        }
        return .success(BootloaderFault(kind, at: address))
    }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}
