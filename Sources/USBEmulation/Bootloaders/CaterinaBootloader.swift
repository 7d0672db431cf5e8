import FileAccess
import FirmwareImage

/// Caterina, the bootloader of the Leonardo, Micro and Pro Micro, as a byte-in,
/// bytes-out engine over a `FlashMemory`: AVR109 ("butterfly") as Caterina.c answers
/// it, the commands avrdude's avr109 programmer sends and the ones it may:
///
/// - ESC: ignored (avrdude's synchronisation); unknown commands answer '?'.
/// - 'S' "CATERIN", 'V' "10", 'p' 'S' (serial programmer), 'a' 'Y' (auto-increment),
///   'b' 'Y' and the block size (one page, big-endian), 't' the device list (0x44, 0),
///   's' the signature in reverse (0x87 0x95 0x1E on the 32U4); 'v' is not Caterina's: '?'.
/// - 'T' device, 'P' / 'L' enter / leave programming, 'x' / 'y' LED: '\r'.
/// - 'A' high low: the *word* address; 'e': erase the application section page by page.
/// - 'B' size(BE16) memory data: a flash block is one page erase, fill and write at the
///   address (the address then moves on by the block); an EEPROM block writes bytes.
/// - 'g' size(BE16) memory: read a block from the address, which moves on by it.
/// - 'r' lock bits, 'F' / 'N' / 'Q' fuses: read only, as the boards ship them.
/// - 'E': '\r', and the bootloader leaves (`exited`).
///
/// The bootloader section is protected by the lock bits the boards ship with (BLB1
/// mode 2/3: SPM cannot write it): a page erase or write there does nothing, the
/// command is still answered '\r' as Caterina answers every block (it does not check),
/// and the read-back shows the bootloader's own code. `writesRefused` counts them.
public struct CaterinaBootloader: Sendable {
    public private(set) var flash: FlashMemory
    public private(set) var eeprom: [UInt8]
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
    /// Answers to flash blocks in the last `receive` that are due late (`takeLate`).
    public private(set) var lateAnswers = 0
    private var pending: [UInt8] = []

    public static let identifier = Array("CATERIN".utf8)
    public static let version = Array("10".utf8)
    /// Lock bits and fuses of a Pro Micro as shipped (bootloader section locked, 4 KiB
    /// boot size, boot reset vector): what 'r', 'F', 'N', 'Q' answer.
    public static let lockBits: UInt8 = 0xEF
    public static let fuses = (low: UInt8(0xFF), high: UInt8(0xD8), extended: UInt8(0xCB))

    public init(flash: FlashMemory, eepromBytes: Int = 1024) {
        self.flash = flash
        self.eeprom = [UInt8](repeating: 0xFF, count: eepromBytes)
    }

    /// Takes bytes as they arrive (a command may come in pieces) and returns the answers
    /// to every command completed by them.
    public mutating func receive(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        var out: [UInt8] = []
        var start = 0
        // Nothing after an unplug is heard.
        while start < pending.count, tripped?.kind != .unplug, let used = step(pending[start...], into: &out) {
            start += used
        }
        pending.removeFirst(start)
        return out
    }

    /// One command from the front of `input`: the bytes it used, or nil when it is not complete yet.
    private mutating func step(_ input: ArraySlice<UInt8>, into out: inout [UInt8]) -> Int? {
        let b = Array(input.prefix(4))
        guard let command = b.first else { return nil }
        func needs(_ n: Int) -> Bool { input.count >= n }
        commandCount += 1
        switch command {
        case 0x1B: commandCount -= 1; return 1
        case UInt8(ascii: "S"): out += Self.identifier
        case UInt8(ascii: "V"): out += Self.version
        case UInt8(ascii: "p"): out.append(UInt8(ascii: "S"))
        case UInt8(ascii: "a"): out.append(UInt8(ascii: "Y"))
        case UInt8(ascii: "b"):
            out += [UInt8(ascii: "Y"), UInt8(flash.part.pageBytes >> 8), UInt8(flash.part.pageBytes & 0xFF)]
        case UInt8(ascii: "t"): out += [0x44, 0x00]
        case UInt8(ascii: "s"): out += flash.part.signature.reversed()
        case UInt8(ascii: "P"), UInt8(ascii: "L"): out.append(0x0D)
        case UInt8(ascii: "r"): out.append(Self.lockBits)
        case UInt8(ascii: "F"): out.append(Self.fuses.low)
        case UInt8(ascii: "N"): out.append(Self.fuses.high)
        case UInt8(ascii: "Q"): out.append(Self.fuses.extended)
        case UInt8(ascii: "T"), UInt8(ascii: "x"), UInt8(ascii: "y"), UInt8(ascii: "l"):
            guard needs(2) else { commandCount -= 1; return nil }
            out.append(0x0D)
            return 2
        case UInt8(ascii: "E"):
            exited = true
            applicationChanged = false
            out.append(0x0D)
        case UInt8(ascii: "e"):
            applicationChanged = true
            applicationWritten = true
            var page = 0
            while page < flash.part.bootloaderStart {
                do { try flash.erasePage(at: page) } catch { writesRefused += 1 }
                page += flash.part.pageBytes
            }
            out.append(0x0D)
        case UInt8(ascii: "A"):
            guard needs(3) else { commandCount -= 1; return nil }
            address = (Int(b[1]) << 8 | Int(b[2])) << 1
            out.append(0x0D)
            return 3
        case UInt8(ascii: "g"):
            guard needs(4) else { commandCount -= 1; return nil }
            let size = Int(b[1]) << 8 | Int(b[2])
            out += readBlock(memory: b[3], size: size)
            return 4
        case UInt8(ascii: "B"):
            guard needs(4) else { commandCount -= 1; return nil }
            let size = Int(b[1]) << 8 | Int(b[2])
            guard needs(4 + size) else { commandCount -= 1; return nil }
            var data = Array(input.dropFirst(4).prefix(size))
            if b[3] == UInt8(ascii: "F"), let f = fault, (address..<(address + size)).contains(f.address) {
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
            if slow, b[3] == UInt8(ascii: "F") { lateAnswers += 1 }
            out.append(writeBlock(memory: b[3], data: data))
            return 4 + size
        default: out.append(UInt8(ascii: "?"))
        }
        return 1
    }

    /// How many answers of the last `receive` are due late (a `slow` fault), cleared.
    public mutating func takeLate() -> Int {
        defer { lateAnswers = 0 }
        return lateAnswers
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
            if memory == UInt8(ascii: "F") {
                out.append(address < flash.bytes.count ? flash.bytes[address] : 0xFF)
            } else if memory == UInt8(ascii: "E") {
                out.append(address < eeprom.count ? eeprom[address] : 0xFF)
            } else {
                return [UInt8(ascii: "?")]
            }
            address += 1
        }
        return out
    }

    private mutating func writeBlock(memory: UInt8, data: [UInt8]) -> UInt8 {
        switch memory {
        case UInt8(ascii: "F"):
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
            return 0x0D
        case UInt8(ascii: "E"):
            for byte in data {
                if address < eeprom.count { eeprom[address] = byte }
                address += 1
            }
            return 0x0D
        default:
            return UInt8(ascii: "?")
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
    public var description: String { "\(kind.rawValue) at 0x" + String(address, radix: 16, uppercase: true) }

    /// `KIND ADDRESS` words (`unplug 0x1000`): nil with the reason when they are not one.
    public static func parse(kind kindWord: String, address addressWord: String) -> Result<BootloaderFault, ParseError> {
        guard let kind = Kind(rawValue: kindWord) else {
            return .failure(ParseError(description: "\(TerminalText.echo(kindWord)) is not unplug, silence, corrupt or slow"))
        }
        let address = addressWord.lowercased().hasPrefix("0x") ? Int(addressWord.dropFirst(2), radix: 16) : Int(addressWord)
        guard let address, address >= 0, address < 0x8000 else {
            return .failure(ParseError(description: "\(TerminalText.echo(addressWord)) is not a flash address (0 to 0x7FFF, decimal or 0x hex)"))
        }
        return .success(BootloaderFault(kind, at: address))
    }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}
