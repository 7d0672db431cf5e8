import Testing
@testable import JSON

@Suite struct JSONWriterTests {
    @Test("writer output reads back to the same value, pretty or compact")
    func writerOutputReadsBackToTheSameValue() throws {
        let value: JSONValue = .object([("t", .number(0.30000000000000004)), ("s", .string("q\"\\\u{1}")),
                                        ("n", .array([.number(1e-7), .number(3), .null]))])
        #expect(try JSONParser.parse(JSONWriter.string(value)).value == value)
        #expect(try JSONParser.parse(JSONWriter.string(value, pretty: false)).value == value)
    }

    /// Every scalar the writer must not emit raw: C0, DEL, C1, the separators and
    /// the noncharacters, in every plane.
    static let escaped: [Unicode.Scalar] = {
        var values: [UInt32] = Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x2028, 0x2029] + Array(0xFDD0...0xFDEF)
        for plane in UInt32(0)...16 { values += [plane << 16 | 0xFFFE, plane << 16 | 0xFFFF] }
        return values.compactMap(Unicode.Scalar.init)
    }()

    // RFC 8259, section 7: "All Unicode characters may be placed within the quotation
    // marks, except for the characters that MUST be escaped: quotation mark, reverse
    // solidus, and the control characters (U+0000 through U+001F)."
    @Test("every control character, separator and noncharacter is written as an escape and reads back")
    func controlCharactersAndNoncharactersAreEscaped() throws {
        #expect(Self.escaped.count == 32 + 33 + 2 + 32 + 34)
        for scalar in Self.escaped {
            let text = "a" + String(scalar) + "b"
            let written = JSONWriter.string(.object([("k" + String(scalar), .string(text))]), pretty: false)
            #expect(written.unicodeScalars.allSatisfy { $0.isASCII }, "U+\(String(scalar.value, radix: 16))")
            #expect(try JSONParser.parse(written).value == .object([("k" + String(scalar), .string(text))]))
        }
        #expect(JSONWriter.quoted("\u{0}\u{7F}\u{10FFFF}") == #""\u0000\u007f\udbff\udfff""#)
        #expect(JSONWriter.quoted("\u{8}\u{C}\t") == #""\b\f\t""#)
    }

    @Test("other non-ASCII text is written as itself")
    func ordinaryUnicodeIsWrittenRaw() {
        #expect(JSONWriter.quoted("ünï 😀 \u{A0}") == "\"ünï 😀 \u{A0}\"")
    }

    @Test("numbers: integers without a fraction, others shortest round trip, non-finite as null")
    func numbersAreShortestAndNonFiniteIsNull() {
        #expect(JSONWriter.format(2) == "2")
        #expect(JSONWriter.format(0.1) == "0.1")
        #expect(JSONWriter.format(.nan) == "null" && JSONWriter.format(-.infinity) == "null")
    }
}

@Suite struct EchoTests {
    @Test("short text is echoed whole, quoted and escaped")
    func shortTextIsEchoedWhole() {
        #expect(Echo.quoted("HapticBuzz") == "\"HapticBuzz\"")
        #expect(Echo.quoted("a\u{1B}[31mred") == #""a\u001b[31mred""#)
    }

    @Test("text past 64 characters is cut with an ellipsis and its full length")
    func longTextIsCutAndItsLengthSaid() {
        let huge = String(repeating: "x", count: 1 << 20)
        let echoed = Echo.quoted(huge)
        #expect(echoed == "\"" + String(repeating: "x", count: 64) + "…\" (1048576 characters)")
        #expect(Echo.quoted(String(repeating: "y", count: 64)) == "\"" + String(repeating: "y", count: 64) + "\"")
    }

    @Test("a path component is written as is unless long or holding control characters")
    func pathComponentsAreQuotedOnlyWhenNeeded() {
        #expect(Echo.pathComponent("EventDuration") == "EventDuration")
        #expect(Echo.pathComponent("my key") == "my key")
        #expect(Echo.pathComponent("bad\nkey") == #""bad\nkey""#)
        #expect(Echo.pathComponent(String(repeating: "k", count: 100)).hasSuffix("…\" (100 characters)"))
    }
}
