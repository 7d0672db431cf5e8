import FileAccess
import Testing

@Suite struct ArgumentTextTests {
    @Test("Valid UTF-8 decodes to itself and back")
    func validUTF8IsItself() {
        for text in ["plain.ahap", "é.svg", "日本.json", "emoji-🎵", ""] {
            #expect(ArgumentText.string(from: Array(text.utf8)) == text)
            #expect(ArgumentText.bytes(of: text) == Array(text.utf8))
        }
    }

    @Test("Bytes that are not UTF-8 round-trip exactly and show as \\xNN")
    func invalidBytesRoundTrip() {
        let cases: [[UInt8]] = [
            Array("x".utf8) + [0xE9] + Array(".ahap".utf8),  // Latin-1 é
            [0xFF, 0xFE, 0x80],
            [0xC0, 0xAF],  // overlong "/"
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
            [0xE2, 0x82],  // cut short
        ]
        for bytes in cases {
            let text = ArgumentText.string(from: bytes)
            #expect(ArgumentText.bytes(of: text) == bytes, "\(bytes)")
            #expect(!text.unicodeScalars.contains("\u{FFFD}"))
        }
        #expect(ArgumentText.display(Array("x".utf8) + [0xE9] + Array(".ahap".utf8)) == "x\\xE9.ahap")
        #expect(FilePath(bytes: [0x6F, 0x2D, 0xE9]).description == "o-\\xE9")
    }

    @Test("A valid argument holding an escape scalar itself is escaped too, so decoding stays exact")
    func literalEscapeScalarsRoundTrip() {
        let literal = Array("a\u{10FFE9}b".utf8)
        let text = ArgumentText.string(from: literal)
        #expect(ArgumentText.bytes(of: text) == literal)
        #expect(text != "a\u{10FFE9}b")
    }

    @Test("Every byte string of up to three bytes round-trips", arguments: [0, 1, 2])
    func exhaustiveShortStrings(_ length: Int) {
        let interesting: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0, 0x8F, 0x90]
        var strings: [[UInt8]] = [[]]
        for _ in 0...length { strings = strings.flatMap { s in interesting.map { s + [$0] } } }
        for bytes in strings { #expect(ArgumentText.bytes(of: ArgumentText.string(from: bytes)) == bytes, "\(bytes)") }
    }

    @Test("A path's directory and last component are found on the bytes")
    func pathParts() {
        #expect(FilePath("a/b/c.json").directory == "a/b")
        #expect(FilePath("c.json").directory == ".")
        #expect(FilePath("/c.json").directory == "/")
        #expect(FilePath("a/b/c.json").lastComponent == "c.json")
        #expect(FilePath("a").appending("b") == "a/b")
    }
}
