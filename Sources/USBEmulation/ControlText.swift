/// Text from a control-socket client (a command line, a board name, a serial number)
/// echoed back in a reply. The reply may reach a terminal (`hapbridge emulate control`
/// makes it safe again, `nc -U` does not), so every control character is written as a
/// visible escape, and a long echo is cut with its length said.
///
/// The rule is the CLI's `TerminalText` (Sources/HapbridgeCLI), which this module
/// cannot import (the CLI depends on it); keep the two alike.
enum ControlText {
    /// C0 and C1 controls, DEL, and the Unicode controls that reorder or break what is
    /// shown, as `\x1B` / `\u{202E}`; everything else unchanged. Applying it twice
    /// changes nothing more.
    static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if !needsEscape(scalar) {
                out.unicodeScalars.append(scalar)
            } else if scalar.value < 0x100 {
                out += "\\x" + hex(scalar.value, digits: 2)
            } else {
                out += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return out
    }

    /// Input echoed inside a message: made safe and cut to `limit` characters, with the
    /// total length said.
    static func echo(_ input: String, limit: Int = 80) -> String {
        let shown = safe(input)
        guard shown.count > limit else { return shown }
        return shown.prefix(limit) + "… (\(input.count) characters)"
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
