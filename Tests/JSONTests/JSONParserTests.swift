import Testing
@testable import JSON

@Suite struct JSONParserTests {
    func value(_ text: String) throws -> JSONValue { try JSONParser.parse(text).value }

    /// The error `text` gives, as "line:column message".
    func failure(_ text: String, trailingCommas: JSONParser.TrailingCommas = .rejected) -> String? {
        failure(Array(text.utf8), trailingCommas: trailingCommas)
    }

    func failure(_ bytes: [UInt8], trailingCommas: JSONParser.TrailingCommas = .rejected) -> String? {
        do {
            _ = try JSONParser.parse(bytes, trailingCommas: trailingCommas)
            return nil
        } catch {
            return "\(error.line):\(error.column) \(error.message)"
        }
    }

    @Test("every JSON type parses and objects keep their key order")
    func parsesEveryJSONTypeAndKeepsObjectKeyOrder() throws {
        let parsed = try value(#"{"b": [1, -2.5e1, true, false, null], "a": "x\u00e9\n"}"#)
        #expect(parsed == .object([
            ("b", .array([.number(1), .number(-25), .bool(true), .bool(false), .null])),
            ("a", .string("xé\n")),
        ]))
    }

    @Test("a \\u surrogate pair decodes to one scalar")
    func decodesSurrogatePairs() throws {
        #expect(try value(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test("syntax errors name the line and column")
    func syntaxErrorsNameLineAndColumn() {
        #expect(throws: JSONParser.SyntaxError(line: 2, column: 10, message: "missing ',' between object members")) {
            try JSONParser.parse("{\n  \"a\": 1 \"b\": 2}")
        }
    }

    // RFC 8259, section 2: "A JSON value MUST be an object, array, number, or
    // string, or one of the following three literal names: false null true".
    @Test("each message says what was found, not a guess")
    func messagesSayWhatWasFound() {
        #expect(failure("[1 2]") == "1:4 missing ',' between array elements")
        #expect(failure("[1 }") == "1:4 expected ',' or ']' after an array element, found '}'")
        #expect(failure("{\"a\" 1}") == "1:6 expected ':' after the key \"a\", found '1'")
        #expect(failure("{a: 1}") == "1:2 expected a quoted key, found 'a'")
        #expect(failure("['a']") == "1:2 expected a value, found ''': JSON strings take double quotes")
        #expect(failure("[tru]") == "1:2 expected true, found 't' (JSON's only bare words are true, false and null)")
        #expect(failure("[01]") == "1:2 invalid number: JSON numbers have no leading zeros")
        #expect(failure("{} x") == "1:4 unexpected 'x' after the JSON value (the document must hold exactly one value)")
        #expect(failure("") == "1:1 the document is empty: expected a JSON value")
        #expect(failure("[\"\\x\"]") == "1:3 invalid escape '\\' followed by 'x' (JSON escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        #expect(failure("[1,\n 2") == "2:3 unexpected end of the document: the array opened at line 1, column 1 is not closed")
    }

    @Test("only NaN and Infinity themselves are called NaN and Infinity")
    func nanAndInfinityAreNamedOnlyWhenTheyAreThere() {
        #expect(failure("[NaN]") == "1:2 NaN and Infinity are not JSON numbers")
        #expect(failure("[Infinity]") == "1:2 NaN and Infinity are not JSON numbers")
        #expect(failure("[-Infinity]") == "1:2 NaN and Infinity are not JSON numbers")
        #expect(failure("Nope") == "1:1 expected a value, found 'N'")
        #expect(failure("[Inf]") == "1:2 expected a value, found 'I'")
        #expect(failure("{\"a\": None}") == "1:7 expected a value, found 'N'")
    }

    @Test("an unterminated string is reported where it starts")
    func unterminatedStringPointsAtItsQuote() {
        #expect(failure("{\"a\": \"abc") == "1:7 unterminated string: no closing quote before the end of the document")
        #expect(failure("[\"ab\ncd\"]") == "1:5 line break inside a string (a closing quote missing?); write it as \\n")
        #expect(failure("[\"a\u{1}\"]") == "1:4 control character U+0001 inside a string; write it as \\u0001")
    }

    // RFC 8259, section 8.1: "JSON text exchanged between systems that are not part
    // of a closed ecosystem MUST be encoded using UTF-8".
    @Test("UTF-16 and UTF-32 text is named as such, with or without a byte-order mark")
    func otherUnicodeEncodingsAreNamed() {
        let text = #"{"Pattern": []}"#
        let utf16LE = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let utf32LE = text.unicodeScalars.flatMap { [UInt8($0.value & 0xFF), 0, 0, 0] }
        let utf32BE = text.unicodeScalars.flatMap { [0, 0, 0, UInt8($0.value & 0xFF)] }
        let cases: [([UInt8], String)] = [
            ([0xFF, 0xFE] + utf16LE, "UTF-16 little-endian text (it starts with the byte-order mark FF FE)"),
            ([0xFE, 0xFF] + utf16BE, "UTF-16 big-endian text (it starts with the byte-order mark FE FF)"),
            (utf16LE, "UTF-16 little-endian text (its first characters are padded with zero bytes)"),
            (utf16BE, "UTF-16 big-endian text (its first characters are padded with zero bytes)"),
            ([0xFF, 0xFE, 0, 0] + utf32LE, "UTF-32 little-endian text (it starts with the byte-order mark FF FE 00 00)"),
            (utf32LE, "UTF-32 little-endian text (its first characters are padded with zero bytes)"),
            (utf32BE, "UTF-32 big-endian text (its first characters are padded with zero bytes)"),
        ]
        for (bytes, expected) in cases {
            #expect(failure(bytes)
                == "1:1 the document is \(expected); JSON text must be UTF-8 (RFC 8259, section 8.1): save the file as UTF-8")
        }
    }

    // RFC 8259, section 8.1: parsers "MAY ignore the presence of a byte order mark
    // rather than treating it as an error".
    @Test("a UTF-8 byte-order mark is tolerated")
    func utf8ByteOrderMarkIsTolerated() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)).value == .array([.number(1)]))
    }

    @Test("invalid UTF-8 in a string names the first bad byte")
    func invalidUTF8NamesTheByte() {
        #expect(failure([0x5B, 0x22, 0x61, 0xC3, 0x28, 0x22, 0x5D]) == "1:4 invalid UTF-8 in a string: byte 0xC3 (not valid UTF-8)")
    }

    @Test("trailing commas are a syntax error unless asked for, and named as trailing commas")
    func trailingCommasAreRejectedByDefault() {
        #expect(failure("[1, 2,]") == "1:6 trailing comma before ']': a comma in an array must be followed by another element")
        #expect(failure("{\"a\": 1,\n}") == "1:8 trailing comma before '}': a comma in an object must be followed by another member")
        // Where no value came before, it is no trailing comma: nothing is skipped.
        #expect(failure("[,]", trailingCommas: .acceptedWithWarning) == "1:2 expected a value, found ','")
        #expect(failure("[1,,]", trailingCommas: .acceptedWithWarning) == "1:4 expected a value, found ','")
        #expect(failure("{,}", trailingCommas: .acceptedWithWarning) == "1:2 expected a quoted key, found ','")
    }

    @Test("accepted trailing commas each give a warning with their line and column")
    func acceptedTrailingCommasAreWarnedWithTheirPosition() throws {
        let document = try JSONParser.parse("{\n  \"a\": [1, 2, ],\n  \"ü\": {\"b\": true,},\n}", trailingCommas: .acceptedWithWarning)
        #expect(document.value == .object([("a", .array([.number(1), .number(2)])), ("ü", .object([("b", .bool(true))]))]))
        #expect(document.warnings.map(\.description) == [
            "JSON line 2, column 13: trailing comma before ']' ignored",
            "JSON line 3, column 18: trailing comma before '}' ignored",
            "JSON line 3, column 20: trailing comma before '}' ignored",
        ])
    }

    @Test("past 100 trailing commas one warning counts the rest")
    func trailingCommaWarningsAreBounded() throws {
        let text = "[" + Array(repeating: "[1,]", count: 250).joined(separator: ",") + "]"
        let warnings = try JSONParser.parse(text, trailingCommas: .acceptedWithWarning).warnings
        #expect(warnings.count == 101)
        #expect(warnings.last?.message == "and 150 more trailing commas ignored after this one")
    }

    @Test("numbers that overflow become infinity for the reader to report with its path")
    func overflowingNumbersBecomeInfinityForTheReaderToReport() throws {
        #expect(try value("1e400") == .number(.infinity))
        #expect(try value("1e308") == .number(1e308))
    }

    @Test("nesting beyond the limit is an error, not a stack overflow")
    func nestingBeyondTheLimitIsAnErrorNotAStackOverflow() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        // The 65th '[' is one level too deep.
        #expect(failure(deep) == "1:65 nesting deeper than 64 levels")
    }

    @Test("a document over the size limit is refused before parsing")
    func documentsOverTheSizeLimitAreRefusedBeforeParsing() {
        #expect(throws: JSONParser.SyntaxError(line: 1, column: 1, message: "the document is 13 bytes; the limit is 10")) {
            try JSONParser.parse("[1,2,3,4,5,6]", limits: JSONParser.Limits(maxBytes: 10))
        }
    }

    @Test("too many values is an error")
    func tooManyValuesIsAnError() {
        let big = "[" + Array(repeating: "0", count: 200).joined(separator: ",") + "]"
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(big, limits: JSONParser.Limits(maxElements: 100)) }
    }

    @Test("trailing text, control characters, bad escapes and lone surrogates are rejected")
    func rejectsTrailingTextControlCharactersAndBadEscapes() {
        for text in ["{} x", "\"a\u{01}\"", #""\x""#, "[1,]", "01", "1.", "-", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\""] {
            #expect(failure(text) != nil, "\(text)")
        }
    }

    @Test("a bad escape is named as the document wrote it: four digits, a control character's code point as U+ and \\u")
    func badEscapesAreNamedAsWritten() {
        #expect(failure("\"\\ud800\\u0041\"") == "1:2 high surrogate \\ud800 followed by \\u0041, which is not a low surrogate")
        #expect(failure("\"\\udc00\"") == "1:2 lone low surrogate \\udc00 (no high surrogate before it)")
        #expect(failure("\"a\u{01}\"")?.hasSuffix("control character U+0001 inside a string; write it as \\u0001") == true)
    }
}
