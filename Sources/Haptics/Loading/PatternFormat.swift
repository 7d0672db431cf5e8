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

    public func read(_ bytes: [UInt8], ahapOptions: AHAPReader.Options = .init()) throws(PatternLoadError) -> LoadedPattern {
        switch self {
        case .ahap: try AHAPReader.read(bytes, options: ahapOptions)
        case .lofeltHaptic: try LofeltHapticReader.read(bytes, limits: ahapOptions.limits)
        }
    }
}
