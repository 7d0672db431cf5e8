/// The pattern file formats hapbridge reads.
public enum PatternFormat: String, Sendable, CaseIterable {
    /// Apple Haptic and Audio Pattern.
    case ahap
    /// Meta Haptics Studio / Lofelt data model v1.
    case lofeltHaptic = "haptic"

    /// By file extension first; otherwise by content (a .haptic document's
    /// `version` is an object, an AHAP's is a number or absent).
    public static func detect(fileName: String, bytes: [UInt8]) -> PatternFormat {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".haptic") { return .lofeltHaptic }
        if lower.hasSuffix(".ahap") { return .ahap }
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        return head.contains("\"signals\"") && !head.contains("\"Pattern\"") ? .lofeltHaptic : .ahap
    }

    /// The format a parsed document unmistakably is, by its top-level keys: an
    /// AHAP's `Pattern` array, a .haptic document's `signals` or `version` object.
    /// Lets each reader say "this is the other format" instead of "key missing".
    static func apparent(_ root: JSONValue) -> PatternFormat? {
        guard case .object(let members) = root else { return nil }
        func has(_ key: String, _ test: (JSONValue) -> Bool) -> Bool {
            members.contains { $0.key == key && test($0.value) }
        }
        let ahap = has("Pattern") { if case .array = $0 { true } else { false } }
        let haptic = has("signals") { if case .object = $0 { true } else { false } }
            || has("version") { if case .object = $0 { true } else { false } }
        switch (ahap, haptic) {
        case (true, false): return .ahap
        case (false, true): return .lofeltHaptic
        default: return nil
        }
    }

    /// The error a reader gives when the document is the other format.
    static func misnamed(_ found: PatternFormat, readAs expected: PatternFormat) -> PatternLoadError {
        let what = switch found {
        case .ahap: "an AHAP document (it has a \"Pattern\" array)"
        case .lofeltHaptic: "a .haptic document (Meta Haptics Studio / Lofelt: it has \"signals\" or a \"version\" object)"
        }
        return PatternLoadError(
            path: "(root)",
            rule: "this is \(what), not \(expected == .ahap ? "an AHAP" : "a .haptic") document; give the file the .\(found.rawValue) extension")
    }

    public func read(
        _ bytes: [UInt8], ahapOptions: AHAPReader.Options = .init(),
        hapticValidation: LofeltHapticReader.Validation = .legacyCompatibility
    ) throws(PatternLoadError) -> LoadedPattern {
        switch self {
        case .ahap: try AHAPReader.read(bytes, options: ahapOptions)
        case .lofeltHaptic: try LofeltHapticReader.read(bytes, validation: hapticValidation, limits: ahapOptions.limits)
        }
    }
}
