/// A strict RFC 8259 parser with hard limits, written for untrusted pattern files:
/// nesting depth and element counts are bounded before anything is allocated for
/// them, so a hostile document gets an error, never a stack overflow or an
/// out-of-memory kill.
public struct JSONParser {
    public struct Limits: Sendable {
        public var maxBytes: Int
        public var maxDepth: Int
        public var maxElements: Int

        public init(maxBytes: Int = 32 << 20, maxDepth: Int = 64, maxElements: Int = 2_000_000) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxElements = maxElements
        }
    }

    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var message: String
        public var description: String { "JSON line \(line), column \(column): \(message)" }
    }

    // The parser runs inside `withUnsafeBufferPointer` on the caller's bytes: no
    // bounds checks or reference counting per byte, which is most of its cost.
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: Limits
    private var index = 0
    private var elements = 0

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(SyntaxError) {
                return .success(try parse(buffer: buffer, limits: limits))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func parse(buffer bytes: UnsafeBufferPointer<UInt8>, limits: Limits) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, limits: limits)
        guard bytes.count <= limits.maxBytes else {
            throw parser.error("the document is \(bytes.count) bytes; the limit is \(limits.maxBytes)")
        }
        // A UTF-8 byte-order mark is tolerated: some editors write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ text: String, limits: Limits = Limits()) throws(SyntaxError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func error(_ message: String) -> SyntaxError {
        var line = 1, column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return SyntaxError(line: line, column: column, message: message)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func countElement() throws(SyntaxError) {
        elements += 1
        if elements > limits.maxElements {
            throw error("more than \(limits.maxElements) JSON values; the document is too complex")
        }
    }

    private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
        try countElement()
        guard let byte = current else { throw error("unexpected end of the document") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            if byte == UInt8(ascii: "N") || byte == UInt8(ascii: "I") {
                throw error("NaN and Infinity are not JSON numbers")
            }
            throw error("unexpected character '\(printable(byte))'")
        }
    }

    private func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(SyntaxError) {
        let text = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            guard current == text[offset] else { throw error("invalid literal; expected \(literal)") }
            index += 1
        }
    }

    private mutating func checkDepth(_ depth: Int) throws(SyntaxError) {
        if depth > limits.maxDepth { throw error("nesting deeper than \(limits.maxDepth) levels") }
    }

    private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            case nil: throw error("unexpected end of the document inside an object")
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            case nil: throw error("unexpected end of the document inside an array")
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, and usually pure ASCII.
        var ascii = true
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw error("control character in a string") }
            ascii = ascii && byte < 0x80
            index += 1
        }
        if current == UInt8(ascii: "\"") {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
            let text = ascii ? String(decoding: slice, as: UTF8.self) : try decodeUTF8(slice)
            index += 1
            return text
        }
        var scalars = Array(bytes[start..<index])
        while true {
            guard let byte = current else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return try scalars.withUnsafeBufferPointer { buffer throws(SyntaxError) in try decodeUTF8(buffer) }
            case UInt8(ascii: "\\"):
                guard let escaped = current else { throw error("unterminated escape") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default: throw error("invalid escape '\\\(printable(escaped))'")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in a string") }
                scalars.append(byte)
            }
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(SyntaxError) -> [UInt8] {
        var code = try parseHex4()
        if (0xD800..<0xDC00).contains(code) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("lone high surrogate in \\u escape") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in \\u escape") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(code) {
            throw error("lone low surrogate in \\u escape")
        }
        guard let scalar = Unicode.Scalar(code) else { throw error("invalid code point in \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private func decodeUTF8(_ slice: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
        return text
    }

    private mutating func parseNumber() throws(SyntaxError) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw error("invalid number")
        }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            let digits = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            guard index > digits else { throw error("invalid number: no digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            guard index > digits else { throw error("invalid number: no digits in the exponent") }
        }
        guard index - start <= 400 else { throw error("number literal longer than 400 characters") }
        if let fast = Self.fastDecimal(UnsafeBufferPointer(rebasing: bytes[start..<index])) { return fast }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Overflow gives ±infinity, which the pattern reader reports with its JSON path.
        guard let value = Double(text) else { throw error("invalid number \(text)") }
        return value
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { pow10($0) }

    private static func pow10(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 10 }
        return value
    }

    /// Clinger's fast path: a decimal with at most 15 significant digits and no
    /// exponent is `mantissa / 10^k` with both exactly representable, so one
    /// correctly rounded division gives the same Double as a full conversion.
    /// Anything else (exponents, long mantissas) takes the general path.
    private static func fastDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0, digits = 0, fraction = 0, negative = false, seenDot = false
        for (offset, byte) in text.enumerated() {
            switch byte {
            case UInt8(ascii: "-") where offset == 0: negative = true
            case UInt8(ascii: "."): seenDot = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if mantissa == 0 && byte == UInt8(ascii: "0") && !seenDot { continue }
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                if seenDot { fraction += 1 }
            default: return nil
            }
        }
        guard digits <= 15, fraction <= 22 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }
}
