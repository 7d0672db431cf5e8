import Hex

/// One node of a bench file or test script as `YAMLComposer` built it: a scalar, a
/// list or a mapping, and where it starts. Aliases are resolved to the node their
/// anchor names (shared, not copied), so nothing above the composer meets one.
///
/// Its depth is at most `YAMLComposer.Limits.maxDepth`, aliases included, so code that
/// walks it (and its release, which recurses as deep as the tree) is bounded.
struct YAMLTree: Sendable {
    enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLTree])
        case mapping([YAMLPair])
    }

    var content: Content
    /// 1-based, of the node's first character (its anchor, where it has one).
    var line: Int
    var column: Int
}

struct YAMLPair: Sendable {
    var key: YAMLTree
    var value: YAMLTree
}

/// A scalar's text and whether it was written plain (unquoted, not a block scalar):
/// only a plain scalar can be a number, a boolean or null, so `"5"` and `'true'` stay
/// strings, as in YAML 1.2's core schema.
///
/// The rules are the core schema's, on purpose stricter than YAML 1.1's: `yes`, `no`,
/// `on` and `off` are strings, not booleans; `1_000`, `0b101`, `1:30` and `0x1p3` are
/// not numbers. A key that wants a number or a boolean says so when it gets one of them.
struct YAMLScalar: Sendable, Equatable {
    var text: String
    var isPlain: Bool

    /// `~`, `null` (`Null`, `NULL`) or nothing at all, written plain.
    var isNull: Bool { isPlain && ["", "~", "null", "Null", "NULL"].contains(text) }

    var bool: Bool? {
        guard isPlain else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// A whole number: decimal (`-12`, `+3`), `0o17` or `0x1F`; nil past Int's range.
    var int: Int? {
        guard isPlain else { return nil }
        let bytes = Array(text.utf8)
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            let digits = String(decoding: bytes[2...], as: UTF8.self)
            switch bytes[1] {
            case UInt8(ascii: "x"): return Hex.value(digits, as: Int.self)
            case UInt8(ascii: "o"): return digits.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) } ? Int(digits, radix: 8) : nil
            default: break
            }
        }
        guard Self.isDecimalInteger(bytes[...]) else { return nil }
        return Int(text)
    }

    /// A number: a whole number as above, a decimal fraction with an optional exponent
    /// (`2.5`, `.5`, `1e-3`, `-1.5E+2`), `.inf`, `-.inf` or `.nan` (each as the core
    /// schema spells them). A decimal integer too large for Int is its nearest Double.
    var number: Double? {
        guard isPlain else { return nil }
        if let i = int { return Double(i) }
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        guard Self.isDecimalFraction(Array(text.utf8)) else { return nil }
        return Double(text)
    }

    static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }

    /// `[-+]?[0-9]+`
    static func isDecimalInteger(_ bytes: ArraySlice<UInt8>) -> Bool {
        var rest = bytes
        if let first = rest.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { rest = rest.dropFirst() }
        return !rest.isEmpty && rest.allSatisfy(isDigit)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
    static func isDecimalFraction(_ bytes: [UInt8]) -> Bool {
        var i = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        let wholeStart = i
        while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        let whole = i - wholeStart
        var fraction = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            fraction = i - start
        }
        guard whole > 0 || fraction > 0 else { return false }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            let start = i
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            guard i > start else { return false }
        }
        return i == bytes.count
    }
}
