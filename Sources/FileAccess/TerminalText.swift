import Hex

/// Text from input (file names, pattern metadata, JSON keys, profile fields) made
/// safe to show on a terminal. A file name or a key may hold ESC sequences that
/// recolour, retitle or rewrite the user's terminal, or a carriage return that
/// overwrites what was printed before it; everything the CLI prints as a line goes
/// through `safe(_:)` on its way out (see `Console`), so no caller can forget it;
/// the emulation's control socket escapes what it echoes with the same rule.
public enum TerminalText {
    /// Every C0 control (U+0000–U+001F, tab and newline too: one printed line stays one
    /// line), DEL, every C1 control (U+0080–U+009F, which some terminals obey as ESC
    /// sequences), and the Unicode controls that reorder or break what is shown (bidi
    /// overrides and isolates, line and paragraph separators), written as visible
    /// escapes: `\x1B`, `\u{202E}`. Everything else passes unchanged.
    public static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if !needsEscape(scalar) {
                out.unicodeScalars.append(scalar)
            } else if let byte = ArgumentText.escapedByte(scalar) {
                out += "\\x" + Hex.digits(byte, width: 2)  // a byte of a name that is not UTF-8
            } else if scalar.value < 0x100 {
                out += "\\x" + Hex.digits(scalar.value, width: 2)
            } else {
                out += "\\u{" + Hex.digits(scalar.value, width: 4) + "}"
            }
        }
        return out
    }

    /// Input echoed inside a message: made safe and cut to `limit` characters, with
    /// the total length said, so a 1 MB argument is one readable line.
    public static func echo(_ input: String, limit: Int = 80) -> String {
        let shown = safe(input)
        guard shown.count > limit else { return shown }
        return shown.prefix(limit) + "… (\(input.count) characters)"
    }

    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi marks, embeddings, overrides, isolates
        case _ where ArgumentText.escapedByte(scalar) != nil: true  // an argument's byte that is not UTF-8 (`ArgumentText`)
        default: false
        }
    }
}
