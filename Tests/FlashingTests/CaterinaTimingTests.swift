import FirmwareImage
import Testing
import USBEmulation

/// When the emulated Caterina answers: as Caterina.c, after the self-programming its
/// command started is done (it waits on boot_spm_busy_wait before the '\r'). Each
/// reply carries that time, counted in page operations of the part's SPM time; no
/// clock is read.
@Suite("Caterina answers when its flash is done")
struct CaterinaTimingTests {
    let part = AVRPart.atmega32u4
    var spm: UInt64 { UInt64(part.selfProgrammingMicroseconds) }

    @Test("a 128-byte block write is answered after one page erase and one page write; the address before it and the read-back after it at once")
    func blockWrite() {
        var engine = CaterinaBootloader(flash: FlashMemory(part: part))
        let readBack: [UInt8] = [UInt8(ascii: "A"), 0x01, 0x00, UInt8(ascii: "g"), 0, 2, UInt8(ascii: "F")]
        let replies = engine.replies(to: CaterinaFaultTests.block(at: 0x0200, 0x5A) + readBack)
        #expect(replies == [
            CaterinaBootloader.Reply(busyMicroseconds: 0, bytes: [0x0D]),
            CaterinaBootloader.Reply(busyMicroseconds: 2 * spm, bytes: [0x0D, 0x0D, 0x5A, 0x5A]),
        ])
    }

    @Test("the chip erase is answered after an erase and a write of every application page (224 on the 32U4, about 2 s)")
    func chipErase() {
        var engine = CaterinaBootloader(flash: FlashMemory(part: part))
        let replies = engine.replies(to: [UInt8(ascii: "e")])
        #expect(replies == [CaterinaBootloader.Reply(busyMicroseconds: 2 * UInt64(part.applicationBytes / part.pageBytes) * spm, bytes: [0x0D])])
    }

    @Test("an application already on the board (--image) was written before the host came: the first answer is not held for it")
    func preloadIsNotPaid() throws {
        var flash = FlashMemory(part: part)
        try flash.writePage(at: 0, [UInt8](repeating: 0x0C, count: part.pageBytes))
        var engine = CaterinaBootloader(flash: flash)
        #expect(engine.replies(to: [UInt8(ascii: "S")]) == [CaterinaBootloader.Reply(busyMicroseconds: 0, bytes: Array("CATERIN".utf8))])
    }

    @Test("a slow board (fault slow) adds its delay to each flash block's answer, from the block over its address on")
    func slowBoard() {
        var engine = CaterinaBootloader(flash: FlashMemory(part: part))
        engine.fault = BootloaderFault(.slow, at: 0x0100)
        let first = engine.replies(to: CaterinaFaultTests.block(at: 0x0000, 0x11))
        let second = engine.replies(to: CaterinaFaultTests.block(at: 0x0100, 0x22))
        #expect(first.last?.busyMicroseconds == 2 * spm)
        #expect(second.last?.busyMicroseconds == 2 * spm + UInt64(BootloaderFault.slowAnswerMicroseconds))
    }
}
