import FirmwareImage
import Testing
import USBEmulation

/// The emulated Caterina's faults (`emulate control fault`), on the AVR109 engine
/// alone: each fires once, at the first flash block written over its address.
@Suite("Caterina faults: unplug, silence, corrupt")
struct CaterinaFaultTests {
    /// 'A' to a word address, then one 128-byte 'B' … 'F' block of `byte`.
    static func block(at address: Int, _ byte: UInt8) -> [UInt8] {
        let word = address / 2
        return [UInt8(ascii: "A"), UInt8(word >> 8), UInt8(word & 0xFF)] + [UInt8(ascii: "B"), 0, 128, UInt8(ascii: "F")]
            + [UInt8](repeating: byte, count: 128)
    }

    static func engine(_ fault: BootloaderFault) -> CaterinaBootloader {
        var engine = CaterinaBootloader(flash: FlashMemory(part: .atmega32u4))
        engine.fault = fault
        return engine
    }

    @Test("silence: the block over the address is written but its answer never comes; the next block is answered")
    func silence() {
        var engine = Self.engine(BootloaderFault(.silence, at: 0x0100))
        #expect(engine.receive(Self.block(at: 0x0000, 0x11)) == [0x0D, 0x0D])
        #expect(engine.receive(Self.block(at: 0x0100, 0x22)) == [0x0D], "only the address is answered")
        #expect(engine.takeTripped() == BootloaderFault(.silence, at: 0x0100))
        #expect(engine.receive(Self.block(at: 0x0180, 0x33)) == [0x0D, 0x0D])
        #expect(engine.flash.bytes[0x0100] == 0x22 && engine.flash.bytes[0x0180] == 0x33)
        #expect(engine.applicationChanged, "a board left like this comes back in its bootloader")
    }

    @Test("corrupt: the byte at the address is stored with its low bit flipped, the block answered as usual; once")
    func corrupt() {
        var engine = Self.engine(BootloaderFault(.corrupt, at: 0x0102))
        #expect(engine.receive(Self.block(at: 0x0100, 0x22)) == [0x0D, 0x0D])
        #expect(engine.flash.bytes[0x0101] == 0x22 && engine.flash.bytes[0x0102] == 0x22 ^ 0x01)
        #expect(engine.receive(Self.block(at: 0x0100, 0x22)) == [0x0D, 0x0D])
        #expect(engine.flash.bytes[0x0102] == 0x22, "the fault fired once: the page written again holds the image")
    }

    @Test("unplug: the block over the address is not written and nothing after it is heard")
    func unplug() {
        var engine = Self.engine(BootloaderFault(.unplug, at: 0x0000))
        #expect(engine.receive(Self.block(at: 0x0000, 0x11) + Array("S".utf8)) == [0x0D])
        #expect(engine.takeTripped()?.kind == .unplug)
        #expect(engine.flash.bytes[0x0000] == 0xFF)
        #expect(engine.receive(Array("S".utf8)) == [])
    }
}
