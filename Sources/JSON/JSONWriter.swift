import Hex

/// Serialises a `JSONValue` with stable key order and shortest round-trip numbers,
/// so writing then reading a pattern gives back the same Doubles.
///
/// The output is valid JSON whatever the strings hold: every control character
/// (C0, DEL, C1), the line and paragraph separators and every Unicode
/// noncharacter (U+FDD0…U+FDEF, U+xFFFE, U+xFFFF) are written as `\u` escapes,
/// so no text from an input file reaches a reader raw. Swift strings hold no lone
/// surrogates, so every escape is a scalar or a well-formed surrogate pair.
public enum JSONWriter {
    public static func string(_ value: JSONValue, pretty: Bool = true) -> String {
        var out = ""
        write(value, into: &out, indent: pretty ? 0 : nil)
        if pretty { out += "\n" }
        return out
    }

    private static func write(_ value: JSONValue, into out: inout String, indent: Int?) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += format(number)
        case .string(let text): writeString(text, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (offset, item) in items.enumerated() {
                if offset > 0 { out += "," }
                newline(&out, indent.map { $0 + 1 })
                write(item, into: &out, indent: indent.map { $0 + 1 })
            }
            newline(&out, indent)
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { out += "," }
                newline(&out, indent.map { $0 + 1 })
                writeString(member.key, into: &out)
                out += indent == nil ? ":" : ": "
                write(member.value, into: &out, indent: indent.map { $0 + 1 })
            }
            newline(&out, indent)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int?) {
        guard let indent else { return }
        out += "\n" + String(repeating: "  ", count: indent)
    }

    /// Integral values print without a fraction ("2", not "2.0"); others use Swift's
    /// shortest representation that reads back to the same Double. JSON has no
    /// NaN or infinity: they are written as null.
    public static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        writeString(text, into: &out)
        return out
    }

    /// Scalars written as `\u` escapes rather than as themselves.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // control characters (Unicode category Cc)
        case 0x2028, 0x2029: true  // line and paragraph separators: line breaks to many readers
        case 0xFDD0...0xFDEF: true  // noncharacters
        default: scalar.value & 0xFFFE == 0xFFFE  // U+FFFE, U+FFFF and their kin in every plane
        }
    }

    private static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            default:
                guard needsEscape(scalar) else { out.unicodeScalars.append(scalar); continue }
                // Beyond the BMP this is the scalar's surrogate pair.
                for unit in String(scalar).utf16 { out += "\\u" + Hex.digits(unit, width: 4, case: .lower) }
            }
        }
        out += "\""
    }
}
