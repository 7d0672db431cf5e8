/// The facts about a microcontroller that decide whether an image may be written to
/// it, and where: its flash, its page size, the bootloader section a flash must never
/// touch, and the signature its bootloader reports. One value per supported part;
/// the image checks, the programmers and the bootloader emulations all read it.
public struct AVRPart: Sendable, Equatable, CustomStringConvertible {
    /// avrdude's and avr-gcc's name (`-p`/`-mmcu`), lower case.
    public var name: String
    /// The three signature bytes in memory order (0x1E first), as the datasheet lists them.
    public var signature: [UInt8]
    /// All of the program flash, bootloader section included.
    public var flashBytes: Int
    /// One flash page: the unit of an erase-and-write in the bootloader (SPM).
    public var pageBytes: Int
    /// The bootloader section at the top of flash (BOOTSZ fuses as the boards ship).
    public var bootloaderBytes: Int
    /// ELF `e_flags & EF_AVR_ARCH_MASK` for this core (avr5 for the ATmega32U4).
    public var elfArchitecture: UInt32
    /// How long one self-programming operation (an SPM page erase or page write) keeps
    /// the flash busy: the datasheet's maximum, so a time from a model of the part is
    /// the slow end of what the chip does (its RC oscillator times it: 3.7 to 4.5 ms on
    /// the ATmega32U4).
    public var selfProgrammingMicroseconds: Int
    /// The data EEPROM, where the firmware keeps its serial record (protocol.h,
    /// `HB_SERIAL_RECORD_*`); `flash --serial` writes it through the bootloader.
    public var eepromBytes: Int
    /// How long the chip takes to write one EEPROM byte (erase and write, atomic): a
    /// bootloader's eeprom_write_byte waits this long for the byte before.
    public var eepromWriteMicroseconds: Int

    /// Where the bootloader section starts: application data must end before it.
    public var bootloaderStart: Int { flashBytes - bootloaderBytes }
    /// The bytes an application may occupy.
    public var applicationBytes: Int { bootloaderStart }

    public var description: String { name }

    /// The ATmega32U4 as the Pro Micro, Leonardo and Micro ship it: 32 KiB flash,
    /// 128-byte pages, a 4 KiB bootloader (Caterina; Atmel's DFU bootloader also
    /// fits in 4 KiB), signature 1E 95 87 (datasheet §28.7.1), a page erase or write
    /// by SPM in at most 4.5 ms (datasheet, "Programming Time for Flash when Using SPM"),
    /// 1 KiB of EEPROM written in 3.3 ms a byte (datasheet, "EEPROM Data Memory",
    /// "EEPROM Programming Time": 26,368 cycles of the 8 MHz calibrated RC oscillator).
    public static let atmega32u4 = AVRPart(
        name: "atmega32u4", signature: [0x1E, 0x95, 0x87], flashBytes: 32 * 1024, pageBytes: 128,
        bootloaderBytes: 4 * 1024, elfArchitecture: 5, selfProgrammingMicroseconds: 4500,
        eepromBytes: 1024, eepromWriteMicroseconds: 3300)

    /// Every part hapbridge can flash.
    public static let all: [AVRPart] = [.atmega32u4]

    /// The part with this signature, if hapbridge knows it.
    public static func withSignature(_ signature: [UInt8]) -> AVRPart? {
        all.first { $0.signature == signature }
    }
}
