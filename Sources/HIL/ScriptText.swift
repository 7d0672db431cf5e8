import Hex

/// A bench file's or script's bytes as text: UTF-8 (what libyaml reads and the formats
/// are written in), or an error naming the line of the first byte that is not.
public enum ScriptText {
    /// The most a bench file or script may hold: far past any real one, and the measure
    /// of what its aliases may stand for (`YAMLComposer.Limits`).
    public static let maxBytes = 1 << 20

    public static func decode(_ bytes: [UInt8], file: String) throws(ScriptError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        let bad = offset < bytes.count ? bytes[offset] : 0
        let line = bytes[..<min(offset, bytes.count)].reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        throw ScriptError(file: file, line: line, key: "", rule: "not UTF-8 text (byte \(Hex.literal(bad, width: 2)) at byte \(offset))")
    }
}
