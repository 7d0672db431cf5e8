import Hex

/// FLIP protocol version 1: the commands Atmel's USB DFU bootloader for the megaAVR USB
/// parts (AT90USB*, ATmega*U*) takes in DNLOAD data. Atmel's "USB DFU Bootloader
/// Datasheet" (doc7618) defines them; avrdude's flip1.c, dfu-programmer's atmel.c and
/// LUFA's Bootloaders/DFU (written as a clone of Atmel's) are the readable sources the
/// numbers were checked against. A command is its identifier byte and up to five data
/// bytes; a program command adds a data block.
///
/// Numbers only. How a bootloader answers them (the signature bytes, its security mode,
/// its timing) is the bootloader's, in the emulation; what a host sends, and in which
/// order, is the programmer's.
public enum FLIP {
    /// The command identifiers (doc7618's Id_… names).
    public enum Command: UInt8, Sendable {
        /// Id_prog_start: data[0] `Memory`, data[1...4] the start and end address
        /// (big-endian, end inclusive, inside the selected 64 KiB page), then the block
        /// (`commandBlockBytes`, alignment filler, the bytes, `suffixBytes`).
        case programStart = 0x01
        /// Id_display_data: data[0] `Display`, data[1...4] start and end; UPLOADs then
        /// return the bytes (or GETSTATUS the blank check's outcome).
        case displayData = 0x03
        /// Id_write_command: data[0] `WriteOperation` and its arguments.
        case writeCommand = 0x04
        /// Id_read_command: data[0...1] a `Configuration`; an UPLOAD then returns its byte.
        case readCommand = 0x05
        /// Id_change_base_addr: data[0...1] `selectPage`, data[2] the 64 KiB page.
        case changeBaseAddress = 0x06
    }

    /// What Id_prog_start writes.
    public enum Memory: UInt8, Sendable {
        case flash = 0x00, eeprom = 0x01
    }

    /// What Id_display_data does.
    public enum Display: UInt8, Sendable {
        case flash = 0x00, blankCheck = 0x01, eeprom = 0x02
    }

    /// Id_write_command's operations: `04 00 FF` erases the application section;
    /// `04 03 00` starts the application through a watchdog reset and `04 03 01 AH AL`
    /// by a jump to the address, each once a zero-length DNLOAD follows.
    public enum WriteOperation: UInt8, Sendable {
        case erase = 0x00
        case startApplication = 0x03
    }
    /// The erase's argument for the whole application section.
    public static let eraseAll: UInt8 = 0xFF
    /// How `04 03` starts the application.
    public enum Start: UInt8, Sendable {
        case watchdogReset = 0x00
        case jump = 0x01
    }

    /// Id_change_base_addr's data before the page number, as doc7618 writes it
    /// (`06 03 00 PP`). avrdude's flip1 sends `06 00 PP` instead.
    public static let selectPage: [UInt8] = [0x03, 0x00]
    /// The 16-bit addresses of a command fall in one page of this size.
    public static let pageBytes = 0x10000

    /// Id_read_command's selectors: group, index (doc7618, "Reading Configuration
    /// Information or Manufacturer Information").
    public struct Configuration: Sendable, Equatable, CustomStringConvertible {
        public var group: UInt8
        public var index: UInt8
        public init(_ group: UInt8, _ index: UInt8) {
            self.group = group
            self.index = index
        }
        public var description: String { Hex.bytes([group, index], separator: " ") }

        public static let bootloaderVersion = Configuration(0x00, 0x00)
        public static let bootID1 = Configuration(0x00, 0x01)
        public static let bootID2 = Configuration(0x00, 0x02)
        public static let manufacturerCode = Configuration(0x01, 0x30)
        public static let familyCode = Configuration(0x01, 0x31)
        public static let productName = Configuration(0x01, 0x60)
        public static let productRevision = Configuration(0x01, 0x61)
    }

    /// A program command's block: the command and its data zero-padded to this many
    /// bytes (LUFA's 6 command bytes and DFU_FILLER_BYTES_SIZE; dfu-programmer's
    /// ATMEL_CONTROL_BLOCK_SIZE). Then the start address modulo the control endpoint's
    /// packet size in filler bytes (LUFA discards `StartAddr % FIXED_CONTROL_ENDPOINT_SIZE`,
    /// avrdude puts a short write at `addr % 32`), the bytes, and the DFU file suffix.
    public static let commandBlockBytes = 32
    /// The DFU file suffix after the bytes (CRC, length, "DFU", bcdDFU, VID, PID,
    /// bcdDevice): 16 bytes, not checked by the megaAVR bootloaders.
    public static let suffixBytes = 16
}
