import FirmwareImage
import Testing
import USBEmulation

/// The emulated Caterina's EEPROM, as Caterina.c drives the ATmega32U4's: 'A' sets its
/// CurrAddress to the word address shifted left, an EEPROM byte is at CurrAddress >> 1
/// and CurrAddress moves on by 2 a byte (so the host's number is the EEPROM byte
/// address); each byte written costs the part's EEPROM write time before the answer.
@Suite("Caterina's EEPROM: AVR109 B/g with memory E")
struct CaterinaEEPROMTests {
    let part = AVRPart.atmega32u4

    static func letters(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test("a 'B' … 'E' block at EEPROM address 0x10 is written byte by byte there, answered after 3.3 ms a byte, and 'g' … 'E' reads it back")
    func blockWriteAndReadBack() {
        var engine = CaterinaBootloader(flash: FlashMemory(part: part))
        let data: [UInt8] = [0x48, 0x42, 0x53, 0x4E, 0x01]
        let replies = engine.replies(
            to: Self.letters("A") + [0x00, 0x10] + Self.letters("B") + [0x00, UInt8(data.count)] + Self.letters("E") + data)
        #expect(replies == [
            CaterinaBootloader.Reply(busyMicroseconds: 0, bytes: [0x0D]),
            CaterinaBootloader.Reply(busyMicroseconds: UInt64(data.count * part.eepromWriteMicroseconds), bytes: [0x0D]),
        ])
        #expect(Array(engine.eeprom[0x10..<0x15]) == data)
        #expect(engine.eeprom[0x0F] == 0xFF && engine.eeprom[0x15] == 0xFF)
        let back = engine.receive(Self.letters("A") + [0x00, 0x0F] + Self.letters("g") + [0x00, 7] + Self.letters("E"))
        #expect(back == [0x0D, 0xFF] + data + [0xFF])
        #expect(engine.flash == FlashMemory(part: part), "EEPROM writes leave the flash alone")
    }

    @Test("the EEPROM a board held comes back with it (kept across resets), sized to the part's 1 KiB, and the chip erase leaves it")
    func keptAndNotErased() {
        var held = [UInt8](repeating: 0xFF, count: part.eepromBytes)
        held[0] = 0x48
        var engine = CaterinaBootloader(flash: FlashMemory(part: part), eeprom: held)
        _ = engine.receive(Self.letters("e"))
        #expect(engine.eeprom.count == 1024 && engine.eeprom[0] == 0x48)
        #expect(CaterinaBootloader(flash: FlashMemory(part: part)).eeprom == [UInt8](repeating: 0xFF, count: 1024))
    }

    @Test("a block of another memory type than 'F' or 'E' answers '?' as Caterina.c does")
    func unknownMemory() {
        var engine = CaterinaBootloader(flash: FlashMemory(part: part))
        #expect(engine.receive(Self.letters("g") + [0x00, 0x01] + Self.letters("X")) == [0x3F])
    }
}
