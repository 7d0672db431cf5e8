import AVRBootloaders

/// The FLIP commands `AtmelDFUProgrammer` sends, as DNLOAD data: what dfu-programmer
/// 0.6.1 (atmel.c) and avrdude's flip1.c send for the same steps, built from the
/// protocol's numbers (`FLIP`). What a bootloader answers is not here: the programmer
/// asks, the answer decides.
enum FLIPRequest {
    /// The most one program or read command moves (dfu-programmer's ATMEL_MAX_TRANSFER_SIZE).
    static let maxTransferBytes = 1024

    /// The bytes avrdude's flip1 reads as the part's signature, in memory order (its
    /// flip1_read_sig_bytes: family code, product name, product revision; doc7618
    /// names them so, and the megaAVR bootloaders hold the signature there).
    static let signature: [FLIP.Configuration] = [.familyCode, .productName, .productRevision]

    /// Chip erase of the application section (`04 00 FF`).
    static let eraseAll: [UInt8] = [FLIP.Command.writeCommand.rawValue, FLIP.WriteOperation.erase.rawValue, FLIP.eraseAll]

    /// Selects the 64 KiB page later 16-bit addresses fall in: doc7618's `06 03 00 PP`,
    /// as dfu-programmer sends it.
    static func selectPage(_ page: UInt8) -> [UInt8] { [FLIP.Command.changeBaseAddress.rawValue] + FLIP.selectPage + [page] }

    /// Blank check of flash `start...end` (inclusive): GETSTATUS then says OK or errCHECK_ERASED.
    static func blankCheck(start: UInt16, end: UInt16) -> [UInt8] {
        [FLIP.Command.displayData.rawValue, FLIP.Display.blankCheck.rawValue] + be16(start) + be16(end)
    }

    /// Read flash `start...end` (inclusive): UPLOADs then return it.
    static func readFlash(start: UInt16, end: UInt16) -> [UInt8] {
        [FLIP.Command.displayData.rawValue, FLIP.Display.flash.rawValue] + be16(start) + be16(end)
    }

    /// Read EEPROM `start...end` (inclusive, byte addresses): `03 02`, as dfu-programmer
    /// reads `eeprom` and avrdude's flip1 reads `-U eeprom:r:…`.
    static func readEEPROM(start: UInt16, end: UInt16) -> [UInt8] {
        [FLIP.Command.displayData.rawValue, FLIP.Display.eeprom.rawValue] + be16(start) + be16(end)
    }

    /// Read one configuration byte: GETSTATUS, then an UPLOAD of 1 byte.
    static func readConfiguration(_ selector: FLIP.Configuration) -> [UInt8] {
        [FLIP.Command.readCommand.rawValue, selector.group, selector.index]
    }

    /// Program flash `start..<start + data.count` in one DNLOAD: the command zero-padded
    /// to its 32-byte block, `start % controlPacketSize` filler bytes (the bootloader
    /// takes the data aligned to its control endpoint's packets, as avrdude's flip1
    /// places a short write at `addr % 32`), the data, and the DFU suffix.
    static func programFlash(start: UInt16, data: [UInt8], controlPacketSize: Int) -> [UInt8] {
        program(.flash, start: start, data: data, controlPacketSize: controlPacketSize)
    }

    /// Program EEPROM the same way (`01 01`): the block and its alignment as for flash
    /// (LUFA's bootloader discards the same filler before either memory's bytes).
    static func programEEPROM(start: UInt16, data: [UInt8], controlPacketSize: Int) -> [UInt8] {
        program(.eeprom, start: start, data: data, controlPacketSize: controlPacketSize)
    }

    private static func program(_ memory: FLIP.Memory, start: UInt16, data: [UInt8], controlPacketSize: Int) -> [UInt8] {
        let end = UInt16(truncatingIfNeeded: Int(start) + data.count - 1)
        var block = [FLIP.Command.programStart.rawValue, memory.rawValue] + be16(start) + be16(end)
        block += [UInt8](repeating: 0, count: FLIP.commandBlockBytes - block.count)
        let filler = [UInt8](repeating: 0, count: controlPacketSize > 0 ? Int(start) % controlPacketSize : 0)
        return block + filler + data + suffix
    }

    /// Start the application from address 0 (`04 03 01 00 00`; a zero-length DNLOAD follows).
    static let startApplication: [UInt8] =
        [FLIP.Command.writeCommand.rawValue, FLIP.WriteOperation.startApplication.rawValue, FLIP.Start.jump.rawValue, 0x00, 0x00]

    /// The DFU suffix as dfu-programmer and avrdude fill it: CRC 0 (not checked), length
    /// 16, "DFU", bcdDFU 1.10, VID, PID and bcdDevice all 0xFFFF ("any").
    static let suffix: [UInt8] = [0, 0, 0, 0, UInt8(FLIP.suffixBytes), 0x44, 0x46, 0x55, 0x01, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
