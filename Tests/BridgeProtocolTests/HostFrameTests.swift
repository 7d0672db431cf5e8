import BridgeProtocol
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
}
