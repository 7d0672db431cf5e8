import BridgeProtocol
import Foundation
import Testing

/// Protocol 1.1's frames as Firmware/PROTOCOL.md documents them, byte for byte, and the
/// rules a host decoder holds a board's replies to.
@Suite("Bridge protocol 1.1 from Swift")
struct Protocol11FramesTests {
    /// PROTOCOL.md, "Worked examples (1.1)": the HELLO_REPLY a board stating its intake
    /// and latch lead sends (44 payload bytes), read from the document.
    static func documentedHelloReply() throws -> [UInt8] {
        try #require(try ProtocolDocument().first(type: 0x81), "PROTOCOL.md prints no HELLO_REPLY").bytes
    }

    /// The same reply's first 40 payload bytes: a 1.1 board that does not state its intake.
    static func helloReply11Payload() throws -> [UInt8] { Array(try documentedHelloReply()[4..<44]) }

    @Test("every frame PROTOCOL.md prints decodes, CRC and all, as a host or a board frame")
    func everyDocumentedFrameDecodes() throws {
        let document = try ProtocolDocument()
        #expect(document.frames.count >= 10)
        for frame in document.frames {
            let host = (try? HostFrame.decodeAll(frame.bytes))?.count == 1
            let board = (try? BoardFrame(decoding: frame.bytes)) != nil
            #expect(host || board, "PROTOCOL.md line \(frame.line): \(frame.bytes.count) bytes decode as no frame")
        }
    }

    @Test("a 1.1 host's HELLO carries minor 1")
    func helloCarriesMinorOne() {
        var encoder = HostFrameEncoder()
        #expect(encoder.hello(keepAliveMilliseconds: 500) == [0xA5, 0x06, 0x00, 0x01, 0x01, 0x01, 0xF4, 0x01, 0x00, 0x00, 0xE6, 0x77])
    }

    @Test("I2C_READ, I2C_WRITE and REPLACE_FROM encode byte for byte")
    func newHostFramesEncode() throws {
        var encoder = HostFrameEncoder(firstSequence: 7)
        #expect(try encoder.i2cRead(address: 0x5A, register: 0x16, count: 2) == [0xA5, 0x03, 0x07, 0x09, 0x5A, 0x16, 0x02, 0xCB, 0x44])
        #expect(
            try encoder.i2cWrite(address: 0x5A, register: 0x16, data: [0x3E, 0x8C])
                == [0xA5, 0x04, 0x08, 0x0A, 0x5A, 0x16, 0x3E, 0x8C, 0x29, 0xE1])
        encoder.nextSequence = 10
        #expect(encoder.replaceFrom(at: 2_000_000) == [0xA5, 0x04, 0x0A, 0x14, 0x80, 0x84, 0x1E, 0x00, 0x88, 0x21])
    }

    @Test("I2C requests the protocol cannot carry are refused before sending")
    func i2cRequestsOutOfRangeAreRefused() {
        var encoder = HostFrameEncoder()
        #expect(throws: BridgeProtocolError.i2cByteCount(0)) { try encoder.i2cRead(address: 0x18, register: 0, count: 0) }
        #expect(throws: BridgeProtocolError.i2cByteCount(33)) { try encoder.i2cRead(address: 0x18, register: 0, count: 33) }
        #expect(throws: BridgeProtocolError.i2cAddress(0x80)) { try encoder.i2cRead(address: 0x80, register: 0, count: 1) }
        #expect(throws: BridgeProtocolError.i2cByteCount(0)) { try encoder.i2cWrite(address: 0x18, register: 0, data: []) }
        #expect(encoder.nextSequence == 0)  // nothing was numbered
    }

    @Test("a 1.1 HELLO_REPLY decodes to its serial number and bootloader kind")
    func helloReplyDecodesTheIdentity() throws {
        let reply = try #require(try BoardFrame(decoding: Self.documentedHelloReply()).helloReply)
        #expect(reply.protocolMinor == 1)
        #expect(reply.firmwareMinor == 2)
        #expect(reply.queueCapacity == 96)
        #expect(reply.serialNumber == (try BoardSerialNumber("HB-SIM-0001")))
        #expect(reply.bootloader == .caterina)
        #expect(reply.capabilitySet.isSuperset(of: [.rawI2C, .replaceFrom, .identity, .bootloader]))
    }

    @Test("a 1.0 HELLO_REPLY (18 bytes) has no identity")
    func helloReply10HasNoIdentity() throws {
        let payload = Array(try Self.helloReply11Payload()[0..<18])
        let frame = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload)
        let reply = try #require(try BoardFrame(decoding: frame).helloReply)
        #expect(reply.serialNumber == nil)
        #expect(reply.bootloader == nil)
    }

    @Test("a HELLO_REPLY that states the board's intake ([40..41], PROTOCOL.md) decodes to it; one that does not, or says 0, leaves it unstated")
    func helloReplyStatesTheIntake() throws {
        // PROTOCOL.md prints the ATmega32U4's reply: its intake, which is also what a
        // host assumes for a board that does not state one (the slowest port's).
        let documented = try Self.documentedHelloReply()
        #expect(documented[1] == 0x2C)
        #expect(try BoardFrame(decoding: documented).helloReply?.writeSpacingMicroseconds
            == BoardFrame.HelloReply.unstatedWriteSpacingMicroseconds)
        let payload = try Self.helloReply11Payload()
        let unstated = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload)
        #expect(try BoardFrame(decoding: unstated).helloReply?.writeSpacingMicroseconds == nil)
        let zero = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload + [0x00, 0x00])
        #expect(try BoardFrame(decoding: zero).helloReply?.writeSpacingMicroseconds == nil)
        let stating = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload + [0xFA, 0x00])
        #expect(try BoardFrame(decoding: stating).helloReply?.writeSpacingMicroseconds == 250)
        // The ATmega32U4's intake at 400 kHz (Firmware/README.md, "Intake").
        #expect(BoardFrame.HelloReply.unstatedWriteSpacingMicroseconds == 400)
    }

    @Test("a HELLO_REPLY that states the board's latch lead ([42..43], PROTOCOL.md) decodes to it; a 42-byte one leaves it unstated")
    func helloReplyStatesTheLatchLead() throws {
        let documented = try Self.documentedHelloReply()
        // The documented board's I2C takes no board time: lead 0, stated.
        #expect(try BoardFrame(decoding: documented).helloReply?.latchLeadMicroseconds == 0)
        let payload = try Self.helloReply11Payload() + [0x90, 0x01]
        let intakeOnly = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload)
        #expect(try BoardFrame(decoding: intakeOnly).helloReply?.latchLeadMicroseconds == nil)
        let stating = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload + [0xE8, 0x00])
        #expect(try BoardFrame(decoding: stating).helloReply?.latchLeadMicroseconds == 232)
    }

    @Test("HELLO_REPLY is 18 bytes or at least 40: later minors may append, nothing in between")
    func helloReplyLengths() throws {
        let payload = try Self.helloReply11Payload()
        let longer = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload + [0xAA, 0xBB])
        #expect(try BoardFrame(decoding: longer).helloReply?.serialNumber?.text == "HB-SIM-0001")
        let between = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: Array(payload.prefix(30)))
        #expect(throws: FrameDecodingError.wrongPayloadLength(type: .helloReply, between)) { try BoardFrame(decoding: between) }
    }

    @Test("a serial number outside [0-9A-Za-z._-] or over 20 characters is a typed decoding error")
    func badSerialInReplyIsRefused() throws {
        var payload = try Self.helloReply11Payload()
        payload[22] = 0x20  // a space in "HB SIM-0001"
        let spaced = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload)
        #expect(throws: FrameDecodingError.malformedPayload(
            type: .helloReply, field: "serial number",
            rule: BoardSerialNumberError.character("HB SIM-0001", offset: 2).description, spaced)
        ) { try BoardFrame(decoding: spaced) }
        payload[19] = 21
        let long = try HostFrameEncoder.encode(sequence: 0, type: .helloReply, payload: payload)
        #expect(throws: FrameDecodingError.self) { try BoardFrame(decoding: long) }
    }

    @Test("I2C_RESULT and REPLACED decode to their fields")
    func resultsDecode() throws {
        let read = try #require(
            try BoardFrame(decoding: [0xA5, 0x07, 0x09, 0x89, 0x07, 0x5A, 0x16, 0x00, 0x02, 0x3E, 0x8C, 0x64, 0xA5]).i2cResult)
        #expect(read.requestSequence == 7 && read.address == 0x5A && read.register == 0x16)
        #expect(read.acknowledged && read.data == [0x3E, 0x8C])
        let write = try #require(try BoardFrame(decoding: [0xA5, 0x05, 0x0A, 0x89, 0x08, 0x5A, 0x16, 0x00, 0x00, 0x72, 0xF8]).i2cResult)
        #expect(write.acknowledged && write.data.isEmpty && write.requestSequence == 8)
        // PROTOCOL.md's REPLACED, read from the document: 5 discarded, the queue (96) free.
        let documented = try #require(try ProtocolDocument().first(type: 0x94), "PROTOCOL.md prints no REPLACED")
        let replaced = try #require(try BoardFrame(decoding: documented.bytes).replaced)
        #expect(replaced.requestSequence == 10 && replaced.discardedCommands == 5 && replaced.freeSlots == 96)
    }

    @Test("an I2C_RESULT whose count disagrees with its length is a typed decoding error")
    func i2cResultCountMustMatch() throws {
        let frame = try HostFrameEncoder.encode(sequence: 0, type: .i2cResult, payload: [0x07, 0x5A, 0x16, 0x00, 0x03, 0x3E, 0x8C])
        #expect(throws: FrameDecodingError.malformedPayload(type: .i2cResult, field: "count", rule: "3 bytes read but 2 follow", frame)) {
            try BoardFrame(decoding: frame)
        }
    }

    @Test("serial numbers hold 1...20 characters of [0-9A-Za-z._-]")
    func serialNumberRule() throws {
        #expect(try BoardSerialNumber("bench-7_A.1").text == "bench-7_A.1")
        #expect(try BoardSerialNumber(String(repeating: "9", count: 20)).bytes.count == 20)
        #expect(throws: BoardSerialNumberError.empty) { try BoardSerialNumber("") }
        #expect(throws: BoardSerialNumberError.tooLong(String(repeating: "9", count: 21), length: 21)) {
            try BoardSerialNumber(String(repeating: "9", count: 21))
        }
        #expect(throws: BoardSerialNumberError.character("é", offset: 0)) { try BoardSerialNumber("é") }
        #expect(BoardSerialNumber.unset.text == "UNSET")
    }
}
