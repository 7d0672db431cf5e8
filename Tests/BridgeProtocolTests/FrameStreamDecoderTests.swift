import BridgeProtocol
import Testing

@Suite("Frame stream decoder")
struct FrameStreamDecoderTests {
    /// Board frames as a board sends them: a HELLO_REPLY-sized one and two small ones.
    static let frames: [[UInt8]] = [
        try! HostFrameEncoder.encode(sequence: 0, type: .ack, payload: [7, 6]),
        try! HostFrameEncoder.encode(sequence: 1, type: .eventStopped, payload: [4, 1, 2, 3, 4, 0]),
        try! HostFrameEncoder.encode(sequence: 2, type: .helloReply, payload: Array(0..<18)),
    ]

    @Test("frames that share or straddle 64-byte packets come out whole and in order, however the stream is cut")
    func framesSurviveAnyChunking() {
        let stream = Self.frames.flatMap { $0 }
        for chunk in 1...stream.count {
            var decoder = FrameStreamDecoder()
            var out: [[UInt8]] = []
            var i = 0
            while i < stream.count {
                out += decoder.push(stream[i..<min(stream.count, i + chunk)])
                i += chunk
            }
            #expect(out == Self.frames, "chunk \(chunk)")
            #expect(decoder.skippedBytes == 0 && decoder.badFrames == 0)
        }
    }

    @Test("noise, an over-long length byte and a corrupt frame are skipped; a stray magic does not swallow the next frame")
    func noiseIsSkippedAndTheNextFrameLands() {
        var corrupt = Self.frames[1]
        corrupt[5] ^= 0xFF
        let stream: [UInt8] = [0x00, 0x13, 0xA5, 0xFF] + [0xA5] + corrupt + Self.frames[0] + Self.frames[2]
        var decoder = FrameStreamDecoder()
        let out = decoder.push(stream)
        #expect(out == [Self.frames[0], Self.frames[2]])
        #expect(decoder.badFrames >= 1)
    }
}
