import BridgeProtocol
import Foundation
import Testing

@Suite struct HostFrameTests {
    @Test func encodedCommandsDecodeToTheirStampAndAmplitude() throws {
        var e = HostFrameEncoder()
        let rtp = try HostFrame(decoding: e.rtp(at: 0xDEAD_BEEF, amplitude: 0x7F))
        #expect(rtp.type == .commandRTP)
        #expect(rtp.stamp == 0xDEAD_BEEF)
        #expect(rtp.rtpAmplitude == 0x7F)
        let write = try HostFrame(decoding: e.registerWrite(at: 1234, register: 0x1A, value: 0xB6))
        #expect(write.stamp == 1234 && write.rtpAmplitude == nil)
        #expect(try HostFrame(decoding: e.stopAll()).stamp == nil)
    }

    @Test func aRunOfFramesDecodesInOrder() throws {
        var e = HostFrameEncoder()
        let frames = try HostFrame.decodeAll(e.rtp(at: 10, amplitude: 1) + e.sync(token: 7) + e.stop(at: 20))
        #expect(frames.map(\.type) == [.commandRTP, .sync, .commandStop])
        #expect(frames.map(\.sequence) == [0, 1, 2])
    }

    @Test func aCorruptedFrameIsRefusedWithTheCheckItFailed() {
        var e = HostFrameEncoder()
        var bytes = e.rtp(at: 10, amplitude: 1)
        bytes[bytes.count - 1] ^= 0xFF
        #expect(throws: FrameDecodingError.badCRC(bytes)) { try HostFrame(decoding: bytes) }
        // A board-only type from the host is a payload-length error for this direction.
        let reply = try? HostFrameEncoder.encode(sequence: 0, type: .syncReply, payload: [UInt8](repeating: 0, count: 12))
        #expect(throws: FrameDecodingError.self) { try HostFrame(decoding: reply ?? []) }
    }

    @Test("a frame's description lists its payload as hex bytes, two upper-case digits each, and names an unknown type by its number")
    func descriptionsWriteHexAsTheProtocolDocumentDoes() throws {
        var e = HostFrameEncoder()
        let write = try HostFrame(decoding: e.registerWrite(at: 0x0102_0304, register: 0x1A, value: 0x0B))
        let written = write.payload.map { String(format: "%02X", $0) }.joined(separator: " ")
        #expect(write.description.hasSuffix(" #0 [\(written)]") && written.hasSuffix(" 1A 0B"), "\(write.description)")
        #expect(FrameType(rawValue: 0x7E).description == "type 0x7E")
        #expect(BridgeProtocolError.i2cAddress(0x80).description == "I2C address 0x80 is not a 7-bit address (at most 0x7F)")
    }
}
