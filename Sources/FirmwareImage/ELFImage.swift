import Hex

/// An AVR ELF as avr-gcc links it: 32-bit little-endian, machine EM_AVR (83), the AVR
/// core in `e_flags & EF_AVR_ARCH_MASK` (avr5 for the ATmega32U4). Flash is what the
/// PT_LOAD segments put below 0x800000 by their *physical* (load) address: `.text`, and
/// `.data`'s initial values, which run from RAM (virtual 0x800100) but are stored in
/// flash after `.text`. The other address spaces (`AddressSpace`: RAM, EEPROM, fuses,
/// …, simavr's `.mmcu` tag) are not flash and never written; a segment with bytes at
/// a load address in none of them is refused: no AVR tool puts one there, and whatever
/// it holds (code, as like as not) would be lost.
///
/// avr-libc (2.0 on) also records the device in a `.note.gnu.avr.deviceinfo` note
/// (flash size, device name): when present it must name the part, which tells an
/// atmega328p ELF (avr5 as well) from an atmega32u4 one.
public enum ELFImage {
    static let machineAVR: UInt16 = 83
    static let architectureMask: UInt32 = 0x7F
    static let loadable: UInt32 = 1
    /// Where the AVR toolchain puts data memory: physical addresses below are flash.
    static let dataSpaceStart = 0x80_0000

    /// The AVR address spaces an ELF's load addresses fall in, as binutils' avr linker
    /// scripts place them (avr5.x's MEMORY: text 0, data 0x800060, eeprom 0x810000,
    /// fuse 0x820000, lock 0x830000, signature 0x840000, user_signatures 0x850000) and
    /// avrdude reads them back (fileio.c `elf_mem_limits`: flash up to 8 MiB, each of
    /// the others a 64 KiB window), and simavr's `.mmcu` tag (`--section-start=.mmcu=0x910000`).
    public enum AddressSpace: String, Sendable, CaseIterable {
        case flash, ram = "RAM", eeprom = "EEPROM", fuses, lockBits = "lock bits", signature, userSignatures = "user signatures"
        case simavrTag = "simavr's .mmcu tag"

        public var range: Range<Int> {
            switch self {
            case .flash: 0..<0x80_0000
            case .ram: 0x80_0000..<0x81_0000
            case .eeprom: 0x81_0000..<0x82_0000
            case .fuses: 0x82_0000..<0x83_0000
            case .lockBits: 0x83_0000..<0x84_0000
            case .signature: 0x84_0000..<0x85_0000
            case .userSignatures: 0x85_0000..<0x86_0000
            case .simavrTag: 0x91_0000..<0x92_0000
            }
        }

        /// The space a load address is in, if any.
        public static func containing(_ address: Int) -> AddressSpace? { allCases.first { $0.range.contains(address) } }

        /// "flash 0x000000, RAM 0x800000, …": for messages.
        static var listed: String { allCases.map { "\($0.rawValue) \(Hex.literal($0.range.lowerBound, width: 6))" }.joined(separator: ", ") }
    }

    /// Whether `bytes` start with the ELF magic (how `FirmwareImageFile` tells the formats apart).
    public static func isELF(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) }

    /// The flash image in an ELF file built for `part`; `source` names the file in errors.
    public static func parse(_ bytes: [UInt8], source: String, part: AVRPart) throws(ImageError) -> FirmwareImage {
        func fail(_ rule: ImageError.Rule, _ location: String?, _ detail: String) -> ImageError {
            ImageError(source: source, location: location, rule: rule, detail: detail)
        }
        guard isELF(bytes), bytes.count >= 52 else { throw fail(.malformed, nil, "not an ELF file (no ELF header)") }
        guard bytes[4] == 1, bytes[5] == 1 else {
            throw fail(.wrongPart, "header", "a 64-bit or big-endian ELF: not built for an AVR (avr-gcc writes 32-bit little-endian)")
        }
        let machine = UInt16(truncatingIfNeeded: u16(bytes, 18))
        guard machine == machineAVR else {
            throw fail(.wrongPart, "header", "built for machine \(machine)\(machineName(machine)), not an AVR (EM_AVR, 83): a file for another processor")
        }
        let architecture = u32(bytes, 36) & architectureMask
        guard architecture == part.elfArchitecture else {
            throw fail(.wrongPart, "header", "built for the avr\(architecture) core, the \(part.name) is avr\(part.elfArchitecture): a file for another MCU (rebuild with -mmcu=\(part.name))")
        }
        if let device = deviceInfo(bytes) {
            if let name = device.name, name != part.name {
                throw fail(.wrongPart, "device note", "built for the \(name), not the \(part.name) (rebuild with -mmcu=\(part.name))")
            }
            if let size = device.flashBytes, size != part.flashBytes {
                throw fail(.wrongPart, "device note", "built for an MCU with \(size) bytes of flash, the \(part.name) has \(part.flashBytes)")
            }
        }
        let phoff = u32(bytes, 28)
        let phentsize = u16(bytes, 42)
        let phnum = u16(bytes, 44)
        guard phnum > 0 else { throw fail(.empty, nil, "no program headers: nothing to load (an object file, not a linked program?)") }
        guard phentsize >= 32, Int(phoff) + Int(phnum) * Int(phentsize) <= bytes.count else {
            throw fail(.malformed, "header", "the program header table lies outside the file (cut short?)")
        }
        var runs: [FirmwareImage.Run] = []
        var runSegments: [Int] = []
        for index in 0..<Int(phnum) {
            let at = Int(phoff) + index * Int(phentsize)
            guard u32(bytes, at) == loadable else { continue }
            let offset = Int(u32(bytes, at + 4))
            let physical = Int(u32(bytes, at + 12))
            let size = Int(u32(bytes, at + 16))
            guard size > 0 else { continue }
            let location = "program header \(index)"
            guard let space = AddressSpace.containing(physical) else {
                throw fail(
                    .outsideMemory, location,
                    "its \(size) bytes load at \(Hex.literal(physical, width: 6)), in none of the AVR's address spaces (\(AddressSpace.listed)): no AVR tool links a segment there, and nothing of it could be written")
            }
            guard space == .flash else { continue }
            guard offset + size <= bytes.count else { throw fail(.malformed, location, "the segment's \(size) bytes at file offset \(offset) lie outside the file (cut short?)") }
            guard physical + size <= dataSpaceStart else { throw fail(.tooLarge, location, "the segment at \(Hex.literal(physical, width: 4)) runs into data memory (0x800000)") }
            if let clash = runs.indices.first(where: { runs[$0].address < physical + size && physical < runs[$0].end }) {
                throw fail(.overlap, location, "flash \(Hex.literal(physical, width: 4))...\(Hex.literal(physical + size - 1, width: 4)) overlaps program header \(runSegments[clash])")
            }
            runs.append(.init(address: physical, bytes: Array(bytes[offset..<(offset + size)])))
            runSegments.append(index)
        }
        return FirmwareImage(source: source, runs: runs, declaredPart: part)
    }

    /// The device avr-libc's note names (`.note.gnu.avr.deviceinfo`: namesz, descsz,
    /// type, "AVR\0", then flash start and size, SRAM start and size, EEPROM start and
    /// size, the string table's length, the name's offset in it, the string table).
    static func deviceInfo(_ bytes: [UInt8]) -> (name: String?, flashBytes: Int?)? {
        let shoff = Int(u32(bytes, 32))
        let shentsize = Int(u16(bytes, 46))
        let shnum = Int(u16(bytes, 48))
        let shstrndx = Int(u16(bytes, 50))
        guard shoff > 0, shentsize >= 40, shstrndx < shnum, shoff + shnum * shentsize <= bytes.count else { return nil }
        func section(_ i: Int) -> (name: Int, offset: Int, size: Int) {
            let at = shoff + i * shentsize
            return (Int(u32(bytes, at)), Int(u32(bytes, at + 16)), Int(u32(bytes, at + 20)))
        }
        let names = section(shstrndx)
        guard names.offset + names.size <= bytes.count else { return nil }
        for i in 0..<shnum {
            let s = section(i)
            guard string(bytes, names.offset + s.name, limit: names.offset + names.size) == ".note.gnu.avr.deviceinfo",
                s.offset + s.size <= bytes.count, s.size >= 16 + 36
            else { continue }
            let desc = s.offset + 16  // 12 bytes of note header, "AVR\0"
            let flash = Int(u32(bytes, desc + 4))
            let nameOffset = Int(u32(bytes, desc + 28))
            let name = string(bytes, desc + 32 + nameOffset, limit: s.offset + s.size)
            return (name.flatMap { $0.isEmpty ? nil : $0 }, flash)
        }
        return nil
    }

    /// The device name in avr-libc's note, if the file has one (for tests and messages).
    public static func deviceInfoName(_ bytes: [UInt8]) -> String? { isELF(bytes) ? deviceInfo(bytes)?.name : nil }

    private static func string(_ bytes: [UInt8], _ start: Int, limit: Int) -> String? {
        guard start >= 0, start < min(limit, bytes.count) else { return nil }
        guard let end = bytes[start..<min(limit, bytes.count)].firstIndex(of: 0) else { return nil }
        let chars = bytes[start..<end]
        guard chars.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        return String(decoding: chars, as: UTF8.self)
    }

    private static func machineName(_ machine: UInt16) -> String {
        switch machine {
        case 3: " (x86)"
        case 40: " (ARM)"
        case 62: " (x86-64)"
        case 183: " (AArch64)"
        case 243: " (RISC-V)"
        case 94: " (Xtensa)"
        default: ""
        }
    }

    private static func u16(_ b: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 2 <= b.count else { return 0 }
        return UInt32(b[at]) | UInt32(b[at + 1]) << 8
    }

    private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        return UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
