/// Text from an input file shown back inside an error or warning: written as a
/// JSON string literal (so control characters arrive escaped, never raw) and cut
/// to `limit` characters, with the full length said, so a 1 MB name cannot flood
/// a terminal or a log.
public enum Echo {
    /// Characters (Unicode scalars) shown before the text is cut.
    public static let limit = 64

    /// `"EventTyp"`, or `"aaaa…" (1048576 characters)` past the limit.
    public static func quoted(_ text: String, limit: Int = limit) -> String {
        let scalars = text.unicodeScalars
        let total = scalars.count
        guard total > limit else { return JSONWriter.quoted(text) }
        let shown = JSONWriter.quoted(String(String.UnicodeScalarView(scalars.prefix(limit))))
        return String(shown.dropLast()) + "…\" (\(total) characters)"
    }

    /// A key as a JSON path shows it: as written when short and free of control
    /// characters, else quoted and cut like `quoted(_:)`.
    public static func pathComponent(_ key: String) -> String {
        var count = 0
        for scalar in key.unicodeScalars {
            count += 1
            if count > limit || JSONWriter.needsEscape(scalar) || scalar == "\"" { return quoted(key) }
        }
        return key
    }
}
