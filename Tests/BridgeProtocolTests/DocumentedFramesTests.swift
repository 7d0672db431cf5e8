import BridgeProtocol
import Testing

/// The worked examples of Firmware/PROTOCOL.md, through the Swift side. The firmware's
/// unit tests pin the same bytes from C; this pins the thin Swift wrapper over them.
@Suite("Bridge protocol from Swift")
struct DocumentedFramesTests {
    @Test func theDocumentedRTPAndHelloFramesEncodeByteForByte() {
        var encoder = HostFrameEncoder(firstSequence: 5)
        #expect(encoder.rtp(at: 1_000_000, amplitude: 0x7F) == [0xA5, 0x05, 0x05, 0x10, 0x40, 0x42, 0x0F, 0x00, 0x7F, 0x76, 0x2B])
        #expect(encoder.nextSequence == 6)
        var fresh = HostFrameEncoder()
        // A 1.0 host's HELLO, as PROTOCOL.md shows it.
        #expect(
            fresh.hello(keepAliveMilliseconds: 500, protocolMinor: 0)
                == [0xA5, 0x06, 0x00, 0x01, 0x01, 0x00, 0xF4, 0x01, 0x00, 0x00, 0xB7, 0xDD])
    }

    @Test func theDocumentedNakDecodesToItsFields() throws {
        let frame = try BoardFrame(decoding: [0xA5, 0x04, 0x03, 0xE0, 0x06, 0x03, 0x05, 0x10, 0xE9, 0x56])
        #expect(frame.sequence == 3)
        let nak = try #require(frame.nak)
        #expect(nak.sequence == 6)
        #expect(nak.reason == .sequenceGap)
        #expect(nak.expectedSequence == 5)
        #expect(nak.type == .commandRTP)
        #expect(frame.ack == nil)
    }

    @Test func aBoardFrameWithABadCRCOrLengthIsATypedError() {
        #expect(throws: FrameDecodingError.badCRC([0xA5, 0x04, 0x03, 0xE0, 0x06, 0x03, 0x05, 0x10, 0xE9, 0x57])) {
            try BoardFrame(decoding: [0xA5, 0x04, 0x03, 0xE0, 0x06, 0x03, 0x05, 0x10, 0xE9, 0x57])
        }
        #expect(throws: FrameDecodingError.truncated([0xA5, 0x04, 0x03])) { try BoardFrame(decoding: [0xA5, 0x04, 0x03]) }
        let cut: [UInt8] = [0xA5, 0x04, 0x03, 0xE0, 0x06, 0x03, 0x05]  // promises 4 payload bytes + CRC
        #expect(throws: FrameDecodingError.badLength(cut)) { try BoardFrame(decoding: cut) }
        // A CRC-valid frame of a known type with the wrong payload length for it.
        let ackTooShort = (try? HostFrameEncoder.encode(sequence: 0, type: .ack, payload: [1])) ?? []
        #expect(throws: FrameDecodingError.wrongPayloadLength(type: .ack, ackTooShort)) { try BoardFrame(decoding: ackTooShort) }
    }

    @Test func payloadsAndSequencesTheProtocolCannotCarryAreRefusedBeforeSending() {
        var encoder = HostFrameEncoder()
        #expect(throws: BridgeProtocolError.sequenceLength(9)) { try encoder.romSequence(at: 0, entries: Array(repeating: 1, count: 9)) }
        #expect(throws: BridgeProtocolError.payloadTooLong(type: .commandRTP, length: 49)) {
            try encoder.frame(.commandRTP, payload: Array(repeating: 0, count: 49))
        }
        #expect(encoder.nextSequence == 0)  // nothing was numbered
        #expect(HostFrameEncoder.resynchronisation.count == 54)
    }
}

@Suite("USB identity")
struct USBIdentityTests {
    @Test("the descriptors Swift reads are the ones usb_identity.h defines: VID:PID, vendor class, bulk 0x81/0x02 of 64 bytes")
    func descriptorsComeFromTheHeader() {
        let device = USBIdentity.deviceDescriptor
        #expect(device.count == 18 && device[0] == 18 && device[1] == 1)
        #expect(UInt16(device[8]) | UInt16(device[9]) << 8 == USBIdentity.vendorID)
        #expect(UInt16(device[10]) | UInt16(device[11]) << 8 == USBIdentity.productID)
        #expect(device[16] == USBIdentity.serialStringIndex)
        let config = USBIdentity.configurationDescriptor
        #expect(config.count == Int(UInt16(config[2]) | UInt16(config[3]) << 8))
        #expect(config[9 + 5] == USBIdentity.interfaceClass)
        #expect(config[18 + 2] == USBIdentity.bulkIn && config[25 + 2] == USBIdentity.bulkOut)
        #expect(USBIdentity.vendorID == 0x1209 && USBIdentity.productID == 0x0001)
        #expect(USBIdentity.stringDescriptor("hb") == [6, 3, 0x68, 0, 0x62, 0])
    }
}
