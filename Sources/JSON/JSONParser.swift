import Hex

/// A strict RFC 8259 parser with hard limits, written for untrusted files: nesting
/// depth and element counts are bounded before anything is allocated for them, so
/// a hostile document gets an error, never a stack overflow or an out-of-memory
/// kill. Every error says where (line and column) and what was found there.
///
/// One leniency can be asked for: trailing commas (`[1, 2,]`), which Apple's own
/// sample AHAP files contain. They are then reported as warnings, never silently
/// dropped.
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

    public enum TrailingCommas: Sendable {
        /// RFC 8259: a comma must be followed by another member or element.
        case rejected
        /// Skipped, each one reported as a `Warning` with its position.
        case acceptedWithWarning
    }

    /// Where in the text: 1-based line and column (in characters, not bytes).
    public struct Position: Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        public var description: String { "line \(line), column \(column)" }
    }

    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var message: String

        public init(line: Int, column: Int, message: String) {
            self.line = line
            self.column = column
            self.message = message
        }

        public var position: Position { Position(line: line, column: column) }
        public var description: String { "JSON line \(line), column \(column): \(message)" }
    }

    /// Something the parser accepted but the strict grammar does not allow.
    public struct Warning: Sendable, Hashable, CustomStringConvertible {
        public var position: Position
        public var message: String

        public var description: String { "JSON \(position): \(message)" }
    }

    public struct Document: Sendable {
        public var value: JSONValue
        public var warnings: [Warning]
    }

    /// Trailing commas reported one by one; past this many, one summary warning
    /// counts the rest (a hostile file could hold millions).
    static let maxReportedTrailingCommas = 100

    // The parser runs inside `withUnsafeBufferPointer` on the caller's bytes: no
    // bounds checks or reference counting per byte, which is most of its cost.
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: Limits
    private let trailingCommas: TrailingCommas
    private var index = 0
    private var elements = 0
    private var trailingCommaOffsets: [Int] = []
    private var trailingCommaCount = 0

    public static func parse(
        _ bytes: [UInt8], limits: Limits = Limits(), trailingCommas: TrailingCommas = .rejected
    ) throws(SyntaxError) -> Document {
        let result: Result<Document, SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(SyntaxError) {
                var parser = JSONParser(bytes: buffer, limits: limits, trailingCommas: trailingCommas)
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    public static func parse(
        _ text: String, limits: Limits = Limits(), trailingCommas: TrailingCommas = .rejected
    ) throws(SyntaxError) -> Document {
        try parse(Array(text.utf8), limits: limits, trailingCommas: trailingCommas)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: Limits, trailingCommas: TrailingCommas) {
        self.bytes = bytes
        self.limits = limits
        self.trailingCommas = trailingCommas
    }

    private mutating func parseDocument() throws(SyntaxError) -> Document {
        guard bytes.count <= limits.maxBytes else {
            throw error("the document is \(bytes.count) bytes; the limit is \(limits.maxBytes)")
        }
        if let encoding = TextEncoding.nonUTF8(bytes) {
            throw error("the document is \(encoding.name) text (\(encoding.evidence)); JSON text must be UTF-8 (RFC 8259, section 8.1): save the file as UTF-8")
        }
        // RFC 8259, section 8.1: parsers "MAY ignore the presence of a byte order
        // mark rather than treating it as an error"; some editors write one.
        if bytes.starts(with: TextEncoding.utf8ByteOrderMark) { index = TextEncoding.utf8ByteOrderMark.count }
        skipWhitespace()
        guard current != nil else { throw error("the document is empty: expected a JSON value") }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else {
            throw error("unexpected \(foundDescription()) after the JSON value (the document must hold exactly one value)")
        }
        return Document(value: value, warnings: trailingCommaWarnings())
    }

    // MARK: Positions and messages

    private func error(_ message: String, at offset: Int? = nil) -> SyntaxError {
        let position = Self.positions(of: [offset ?? index], in: bytes)[0]
        return SyntaxError(line: position.line, column: position.column, message: message)
    }

    /// Line and column of each offset (ascending), in one pass over the text.
    static func positions(of offsets: [Int], in bytes: UnsafeBufferPointer<UInt8>) -> [Position] {
        var result: [Position] = []
        result.reserveCapacity(offsets.count)
        var line = 1, column = 1, scanned = 0
        for offset in offsets {
            let end = min(offset, bytes.count)
            while scanned < end {
                let byte = bytes[scanned]
                if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
                scanned += 1
            }
            result.append(Position(line: line, column: column))
        }
        return result
    }

    private func trailingCommaWarnings() -> [Warning] {
        guard !trailingCommaOffsets.isEmpty else { return [] }
        let positions = Self.positions(of: trailingCommaOffsets, in: bytes)
        var warnings = zip(trailingCommaOffsets, positions).map { offset, position in
            Warning(position: position,
                    message: "trailing comma before '\(Character(UnicodeScalar(closer(after: offset))))' ignored")
        }
        let unreported = trailingCommaCount - trailingCommaOffsets.count
        if unreported > 0 {
            warnings.append(Warning(position: positions[positions.count - 1],
                                    message: "and \(unreported) more trailing commas ignored after this one"))
        }
        return warnings
    }

    /// The bracket that follows the trailing comma at `offset`.
    private func closer(after offset: Int) -> UInt8 {
        var i = offset + 1
        while i < bytes.count, Self.isWhitespace(bytes[i]) { i += 1 }
        return i < bytes.count ? bytes[i] : UInt8(ascii: "?")
    }

    /// What sits at `offset`, for a message: 'x' for printable ASCII, the Unicode
    /// scalar for other valid UTF-8, else the raw byte.
    private func foundDescription(at offset: Int? = nil) -> String {
        let at = offset ?? index
        guard at < bytes.count else { return "end of the document" }
        let byte = bytes[at]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        if byte < 0x80 { return "control character U+\(Hex.digits(byte, width: 4))" }
        var decoder = UTF8()
        var iterator = UnsafeBufferPointer(rebasing: bytes[at..<min(bytes.count, at + 4)]).makeIterator()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return "'\(Character(scalar))' (U+\(Hex.digits(scalar.value, width: 4)))"
        }
        return "byte \(Hex.literal(byte, width: 2)) (not valid UTF-8)"
    }

    // MARK: Grammar

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    @inline(__always) private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private mutating func skipWhitespace() {
        while let byte = current, Self.isWhitespace(byte) { index += 1 }
    }

    private mutating func countElement() throws(SyntaxError) {
        elements += 1
        if elements > limits.maxElements {
            throw error("more than \(limits.maxElements) JSON values; the document is too complex")
        }
    }

    private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
        try countElement()
        guard let byte = current else { throw error("unexpected end of the document: expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            if hasPrefix("NaN") || hasPrefix("Infinity") {
                throw error("NaN and Infinity are not JSON numbers")
            }
            if byte == UInt8(ascii: "'") { throw error("expected a value, found \(foundDescription()): JSON strings take double quotes") }
            throw error("expected a value, found \(foundDescription())")
        }
    }

    private func hasPrefix(_ literal: StaticString, at offset: Int? = nil) -> Bool {
        let start = offset ?? index
        let count = literal.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        let text = literal.utf8Start
        for i in 0..<count where bytes[start + i] != text[i] { return false }
        return true
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(SyntaxError) {
        guard hasPrefix(literal) else {
            throw error("expected \(literal), found \(foundDescription()) (JSON's only bare words are true, false and null)")
        }
        index += literal.utf8CodeUnitCount
    }

    private mutating func checkDepth(_ depth: Int) throws(SyntaxError) {
        if depth > limits.maxDepth { throw error("nesting deeper than \(limits.maxDepth) levels") }
    }

    private enum Container {
        case object, array

        var closer: UInt8 { self == .object ? UInt8(ascii: "}") : UInt8(ascii: "]") }
        var item: String { self == .object ? "member" : "element" }
    }

    /// After a member or element: true when the container closes, false when a
    /// comma leads to the next item. A comma followed by the closer trails: allowed
    /// only if the caller asked, and recorded as a warning then.
    private mutating func containerEnds(_ container: Container, opened opening: Int) throws(SyntaxError) -> Bool {
        skipWhitespace()
        let closer = Character(UnicodeScalar(container.closer))
        switch current {
        case UInt8(ascii: ","):
            let comma = index
            index += 1
            skipWhitespace()
            guard current == container.closer else { return false }
            guard trailingCommas == .acceptedWithWarning else {
                throw error("trailing comma before '\(closer)': a comma in an \(container) must be followed by another \(container.item)", at: comma)
            }
            trailingCommaCount += 1
            if trailingCommaOffsets.count < Self.maxReportedTrailingCommas { trailingCommaOffsets.append(comma) }
            index += 1
            return true
        case container.closer:
            index += 1
            return true
        case nil:
            throw unclosed(container, opening: opening)
        // What could start the next item, where a comma belongs.
        case let byte? where container == .object ? byte == UInt8(ascii: "\"") : Self.startsValue(byte):
            throw error("missing ',' between \(container) \(container.item)s")
        default:
            throw error("expected ',' or '\(closer)' after an \(container) \(container.item), found \(foundDescription())")
        }
    }

    private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONValue {
        try checkDepth(depth)
        let opening = index
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            guard current == UInt8(ascii: "\"") else {
                if current == nil { throw unclosed(.object, opening: opening) }
                throw error("expected a quoted key, found \(foundDescription())")
            }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw error("expected ':' after the key \(Echo.quoted(key)), found \(foundDescription())")
            }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth)))
            if try containerEnds(.object, opened: opening) { return .object(members) }
        }
    }

    private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
        try checkDepth(depth)
        let opening = index
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            guard current != nil else { throw unclosed(.array, opening: opening) }
            items.append(try parseValue(depth: depth))
            if try containerEnds(.array, opened: opening) { return .array(items) }
        }
    }

    private static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): true
        default: false
        }
    }

    private func unclosed(_ container: Container, opening: Int) -> SyntaxError {
        let position = Self.positions(of: [opening], in: bytes)[0]
        return error("unexpected end of the document: the \(container) opened at \(position) is not closed")
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let opening = index
        index += 1
        let start = index
        // Fast path: no escapes, and usually pure ASCII.
        var ascii = true
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw controlCharacterInString(byte) }
            ascii = ascii && byte < 0x80
            index += 1
        }
        if current == UInt8(ascii: "\"") {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
            let text = ascii ? String(decoding: slice, as: UTF8.self) : try decodeUTF8(slice, start: start, opening: opening)
            index += 1
            return text
        }
        var scalars = Array(bytes[start..<index])
        while true {
            guard let byte = current else {
                throw error("unterminated string: no closing quote before the end of the document", at: opening)
            }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try scalars.withUnsafeBufferPointer { buffer throws(SyntaxError) in
                    try decodeUTF8(buffer, start: nil, opening: opening)
                }
            case UInt8(ascii: "\\"):
                guard let escaped = current else {
                    throw error("unterminated string: no closing quote before the end of the document", at: opening)
                }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default:
                    throw error("invalid escape '\\' followed by \(foundDescription(at: index - 1)) (JSON escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: index - 2)
                }
            default:
                guard byte >= 0x20 else { index -= 1; throw controlCharacterInString(byte) }
                scalars.append(byte)
            }
        }
    }

    private func controlCharacterInString(_ byte: UInt8) -> SyntaxError {
        if byte == 0x0A || byte == 0x0D {
            return error("line break inside a string (a closing quote missing?); write it as \\n")
        }
        let code = Hex.digits(byte, width: 4)
        return error("control character U+\(code) inside a string; write it as \\u\(code)")
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("unterminated \\u escape") }
            guard let digit = Hex.nibble(byte) else { throw error("invalid hex digit \(foundDescription()) in a \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(SyntaxError) -> [UInt8] {
        let escapeStart = index - 2
        var code = try parseHex4()
        if (0xD800..<0xDC00).contains(code) {
            guard hasPrefix("\\u") else {
                throw error("lone high surrogate \\u\(Hex.digits(code, width: 4, case: .lower)): it must be followed by a \\u escape of a low surrogate", at: escapeStart)
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else {
                throw error("high surrogate \\u\(Hex.digits(code, width: 4, case: .lower)) followed by \\u\(Hex.digits(low, width: 4, case: .lower)), which is not a low surrogate", at: escapeStart)
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(code) {
            throw error("lone low surrogate \\u\(Hex.digits(code, width: 4, case: .lower)) (no high surrogate before it)", at: escapeStart)
        }
        guard let scalar = Unicode.Scalar(code) else { throw error("invalid code point in a \\u escape", at: escapeStart) }
        return Array(String(Character(scalar)).utf8)
    }

    /// `start` is where `slice` begins in the document, or nil when escapes were
    /// decoded into it (offsets then no longer match: the string's quote is named).
    private func decodeUTF8(_ slice: UnsafeBufferPointer<UInt8>, start: Int?, opening: Int) throws(SyntaxError) -> String {
        if let text = String(validating: slice, as: UTF8.self) { return text }
        guard let start else { throw error("invalid UTF-8 in the string that starts here", at: opening) }
        // Name the first byte that does not decode.
        var iterator = slice.makeIterator()
        var decoder = UTF8()
        var offset = start
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { offset += UTF8.width(scalar) }
        throw error("invalid UTF-8 in a string: \(foundDescription(at: offset))", at: offset)
    }

    private mutating func parseNumber() throws(SyntaxError) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            if hasPrefix("Infinity") { throw error("NaN and Infinity are not JSON numbers", at: start) }
            throw error("invalid number: '-' must be followed by a digit, found \(foundDescription())")
        }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, next >= UInt8(ascii: "0"), next <= UInt8(ascii: "9") {
                throw error("invalid number: JSON numbers have no leading zeros", at: start)
            }
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
        guard index - start <= 400 else { throw error("number literal longer than 400 characters", at: start) }
        if let fast = Self.fastDecimal(UnsafeBufferPointer(rebasing: bytes[start..<index])) { return fast }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Overflow gives ±infinity, which the readers report with their JSON path.
        guard let value = Double(text) else { throw error("invalid number \(text)", at: start) }
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
