@testable import Flashing
import Testing

/// What hapbridge's DFU programmer sends, byte for byte against what the public clients
/// send for the same step (dfu-programmer 0.6.1's atmel.c, avrdude 7's flip1.c): the
/// bytes are written out here, not built from the protocol's numbers.
@Suite("FLIP commands as the public clients send them")
struct FLIPRequestTests {
    @Test("erase, page select, blank check, read and start are dfu-programmer's bytes")
    func commands() {
        #expect(FLIPRequest.eraseAll == [0x04, 0x00, 0xFF])
        #expect(FLIPRequest.selectPage(0) == [0x06, 0x03, 0x00, 0x00])
        #expect(FLIPRequest.blankCheck(start: 0x0000, end: 0x6FFF) == [0x03, 0x01, 0x00, 0x00, 0x6F, 0xFF])
        #expect(FLIPRequest.readFlash(start: 0x0400, end: 0x07FF) == [0x03, 0x00, 0x04, 0x00, 0x07, 0xFF])
        #expect(FLIPRequest.startApplication == [0x04, 0x03, 0x01, 0x00, 0x00])
    }

    @Test("the signature is read as avrdude's flip1 reads it: 05 01 31, 05 01 60, 05 01 61")
    func signature() {
        #expect(FLIPRequest.signature.map(FLIPRequest.readConfiguration) == [[0x05, 0x01, 0x31], [0x05, 0x01, 0x60], [0x05, 0x01, 0x61]])
    }

    @Test("a program command: 01 00 start end zero-padded to 32 bytes, start % 32 filler bytes, the data, dfu-programmer's 16-byte suffix")
    func program() {
        let suffix: [UInt8] = [0, 0, 0, 0, 0x10, 0x44, 0x46, 0x55, 0x01, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let aligned = FLIPRequest.programFlash(start: 0x0080, data: [0xAA, 0xBB], controlPacketSize: 32)
        #expect(aligned == [0x01, 0x00, 0x00, 0x80, 0x00, 0x81] + [UInt8](repeating: 0, count: 26) + [0xAA, 0xBB] + suffix)
        // avrdude's flip1 puts a short write at `addr % 32` in its 32-byte data block.
        let unaligned = FLIPRequest.programFlash(start: 0x0105, data: [0xCC], controlPacketSize: 32)
        #expect(unaligned == [0x01, 0x00, 0x01, 0x05, 0x01, 0x05] + [UInt8](repeating: 0, count: 26 + 5) + [0xCC] + suffix)
    }
}
