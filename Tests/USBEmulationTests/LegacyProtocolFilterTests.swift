import BridgeProtocol
import Testing

@testable import USBEmulation

/// `--protocol 1.0`'s filter on its own: it rewrites only whole, CRC-valid frames and
/// cuts the host's stream where the core's decoder (`hb_decoder_push`) cuts it, so the
/// core sees every other byte as the host sent it.
struct LegacyProtocolFilterTests {
    /// A HELLO as a 1.1 host sends it (minor 1), and as the core must see it (minor 0).
    static func hello(minor: UInt8) -> [UInt8] {
        var encoder = HostFrameEncoder(firstSequence: 7)
        return encoder.hello(keepAliveMilliseconds: 500, protocolMinor: minor)
    }

    @Test("A HELLO offering minor 1 reaches the core offering minor 0, even when it straddles two transfers")
    func helloBecomesMinorZero() {
        var filter = LegacyProtocolFilter()
        let sent = Self.hello(minor: HostFrameEncoder.protocolMinor)
        let out = filter.hostToBoard(Array(sent.prefix(5))) + filter.hostToBoard(Array(sent.dropFirst(5)))
        #expect(out == Self.hello(minor: 0))
    }

    @Test("Bytes that are not a whole, CRC-valid frame pass unchanged and in order: noise, a bad length, a bad CRC")
    func everythingElsePasses() {
        var filter = LegacyProtocolFilter()
        var badCRC = Self.hello(minor: 1)
        badCRC[badCRC.count - 1] ^= 0xFF
        // A length byte above 48 is refused at once by the core; its frame never starts.
        let input: [UInt8] = [0x00, 0x13, 0x5A] + [0xA5, 0x31, 0x00] + badCRC + [0x42]
        #expect(filter.hostToBoard(input) == input)
    }

    @Test("A frame with a bad CRC is skipped whole, as the core skips it: a HELLO right behind it is still rewritten")
    func scanResumesAfterABadFrame() {
        var filter = LegacyProtocolFilter()
        var badCRC = Self.hello(minor: 1)
        badCRC[badCRC.count - 1] ^= 0xFF
        #expect(filter.hostToBoard(badCRC + Self.hello(minor: 1)) == badCRC + Self.hello(minor: 0))
    }

    @Test("0xA5 where a length belongs starts the next frame, as the core's decoder takes it")
    func magicAsLengthStartsAFrame() {
        var filter = LegacyProtocolFilter()
        // hb_decoder_push: "0xA5 is itself an impossible length, and may be the real start."
        #expect(filter.hostToBoard([0xA5] + Self.hello(minor: 1)) == [0xA5] + Self.hello(minor: 0))
    }

    @Test("1.1's frames reach the core with a type no protocol assigns, and the NAK it answers names the type the host sent")
    func laterFramesAreUnknownTypes() throws {
        var filter = LegacyProtocolFilter()
        var encoder = HostFrameEncoder(firstSequence: 3)
        let read = try encoder.i2cRead(address: 0x5A, register: 0, count: 1)
        let toCore = filter.hostToBoard(read)
        var decoder = FrameStreamDecoder()
        #expect(decoder.push(toCore) == [toCore], "a whole frame with a valid CRC")
        #expect(toCore[3] == LegacyProtocolFilter.unassignedType)
        var expected = read
        expected[3] = LegacyProtocolFilter.unassignedType
        #expect(toCore.dropLast(2) == expected.dropLast(2), "only the type changed")

        // What the core answers: NAK UNKNOWN_TYPE with the sequence and type as received.
        let nak = try HostFrameEncoder.encode(
            sequence: 0, type: .nak, payload: [3, NakReason.unknownType.rawValue, 4, LegacyProtocolFilter.unassignedType])
        let answered = try #require(try BoardFrame(decoding: filter.boardToHost(nak)).nak)
        #expect(answered.type == .i2cRead)
        #expect(answered.sequence == 3 && answered.reason == .unknownType && answered.expectedSequence == 4)
    }

    @Test("HELLO_REPLY says firmware 0.1 and drops the capabilities 1.1 added, keeping the rest")
    func helloReplyIsFirmwareZeroOne() throws {
        var payload = [UInt8](repeating: 0, count: 18)
        payload[0] = 1  // protocol 1.0
        payload[2] = 0
        payload[3] = 2  // firmware 0.2
        payload[4] = 0xFF
        payload[5] = 0x07  // every capability bit through 1.1's
        var filter = LegacyProtocolFilter()
        let reply = try #require(
            try BoardFrame(decoding: filter.boardToHost(HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload)))
                .helloReply)
        #expect((reply.firmwareMajor, reply.firmwareMinor) == (0, 1))
        let caps = reply.capabilitySet
        #expect(!caps.contains(.rawI2C) && !caps.contains(.replaceFrom) && !caps.contains(.identity))
        #expect(caps.contains(.rtp) && caps.contains(.clockSync) && caps.contains(.bootloader))
    }
}

struct NoiseStreamTests {
    @Test("The noise never holds the frame magic, and one seed always gives the same bytes")
    func noHeaderMagic() {
        var a = NoiseStream(seed: 1)
        var b = NoiseStream(seed: 1)
        let bytes = a.next(1 << 20)
        // PROTOCOL.md, Frame layout: "magic | always `0xA5`".
        #expect(!bytes.contains(0xA5))
        #expect(bytes == b.next(1 << 20))
        #expect(Set(bytes).count == 255)  // every other byte value occurs
    }
}
