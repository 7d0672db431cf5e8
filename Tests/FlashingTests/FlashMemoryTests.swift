import FirmwareImage
import Testing
import USBEmulation

@Suite("Flash memory model")
struct FlashMemoryTests {
    @Test("a write into the bootloader section is refused and leaves flash unchanged")
    func bootloaderSectionIsProtected() throws {
        var flash = FlashMemory(part: .atmega32u4, bootloader: [0x0C, 0x94])
        let before = flash
        #expect(throws: FlashMemory.Refusal.bootloaderSection(address: 0x7000)) {
            try flash.writePage(at: 0x7000, [UInt8](repeating: 0, count: 128))
        }
        #expect(flash == before)
        flash.eraseApplication()
        #expect(try flash.read(address: 0x7000, count: 2) == [0x0C, 0x94])
    }

    @Test("a page write only clears bits, as SPM does, and an erase sets them again")
    func pageWriteClearsBits() throws {
        var flash = FlashMemory(part: .atmega32u4)
        try flash.writePage(at: 128, [UInt8](repeating: 0xF0, count: 128))
        try flash.writePage(at: 128, [UInt8](repeating: 0x0F, count: 128))
        #expect(try flash.read(address: 128, count: 1) == [0x00])
        flash.eraseApplication()
        #expect(flash.isBlank(from: 0, to: 0x6FFF))
    }

    @Test("an image's pages are whole pages filled with 0xFF, in address order")
    func imagePages() {
        let image = FirmwareImage(source: "t", runs: [.init(address: 130, bytes: [1, 2]), .init(address: 0, bytes: [9])])
        let pages = image.pages(of: .atmega32u4)
        #expect(pages.map(\.address) == [0, 128])
        #expect(pages[1].bytes[2] == 1 && pages[1].bytes[3] == 2 && pages[1].bytes[0] == 0xFF)
    }

    @Test("every page erase and page write costs the part's self-programming time once, taken by the bootloader that answers for it; a refused one costs nothing")
    func selfProgrammingTime() throws {
        var flash = FlashMemory(part: .atmega32u4)
        let spm = UInt64(AVRPart.atmega32u4.selfProgrammingMicroseconds)
        try flash.erasePage(at: 0)
        try flash.writePage(at: 0, [UInt8](repeating: 0, count: 128))
        #expect(throws: FlashMemory.Refusal.bootloaderSection(address: 0x7000)) { try flash.erasePage(at: 0x7000) }
        #expect(flash.takeSelfProgrammingMicroseconds() == 2 * spm)
        #expect(flash.takeSelfProgrammingMicroseconds() == 0, "taken once")
        flash.eraseApplication()
        #expect(flash.takeSelfProgrammingMicroseconds() == 224 * spm, "the chip erase: one page erase per application page")
        #expect(flash.selfProgrammingOperations == 2 + 224)
    }
}
