import Testing
@testable import Haptics

@Suite struct JSONParserTests {
    @Test func parsesEveryJSONTypeAndKeepsObjectKeyOrder() throws {
        let value = try JSONParser.parse(#"{"b": [1, -2.5e1, true, false, null], "a": "x\u00e9\n"}"#)
        #expect(value == .object([
            ("b", .array([.number(1), .number(-25), .bool(true), .bool(false), .null])),
            ("a", .string("xé\n")),
        ]))
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        #expect(throws: JSONParser.SyntaxError(line: 2, column: 10, message: "expected ',' or '}' in an object")) {
            try JSONParser.parse("{\n  \"a\": 1 \"b\": 2}")
        }
    }

    @Test func nanAndInfinityAreNotJSON() {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse("[NaN]") }
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse("[Infinity]") }
    }

    @Test func overflowingNumbersBecomeInfinityForTheReaderToReport() throws {
        #expect(try JSONParser.parse("1e400") == .number(.infinity))
        #expect(try JSONParser.parse("1e308") == .number(1e308))
    }

    @Test func nestingBeyondTheLimitIsAnErrorNotAStackOverflow() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func documentsOverTheSizeLimitAreRefusedBeforeParsing() {
        let limits = JSONParser.Limits(maxBytes: 10)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse("[1,2,3,4,5,6]", limits: limits) }
    }

    @Test func tooManyValuesIsAnError() {
        let limits = JSONParser.Limits(maxElements: 100)
        let big = "[" + Array(repeating: "0", count: 200).joined(separator: ",") + "]"
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(big, limits: limits) }
    }

    @Test func rejectsTrailingTextControlCharactersAndBadEscapes() {
        for text in ["{} x", "\"a\u{01}\"", #""\x""#, "[1,]", "01", "1.", "-", "\"\\ud800\""] {
            #expect(throws: JSONParser.SyntaxError.self, "\(text)") { try JSONParser.parse(text) }
        }
    }

    @Test func writerOutputReadsBackToTheSameValue() throws {
        let value: JSONValue = .object([("t", .number(0.30000000000000004)), ("s", .string("q\"\\\u{1}")),
                                        ("n", .array([.number(1e-7), .number(3), .null]))])
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
        #expect(try JSONParser.parse(JSONWriter.string(value, pretty: false)) == value)
    }
}
