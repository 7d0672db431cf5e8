/// Why a bench file or test script cannot be used: the file, the line and the key where
/// the rule is broken, and the rule, in one line ("suite.yaml:12: steps[2].measure.high:
/// must be a number"). Nothing runs from a file that has one.
public struct ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil when the file as a whole is at fault (unreadable, empty).
    public var line: Int?
    /// The key path from the document's root, as the file spells it ("steps[2].measure").
    public var key: String
    public var rule: String

    public init(file: String, line: Int?, key: String, rule: String) {
        self.file = file
        self.line = line
        self.key = key
        self.rule = rule
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(key.isEmpty ? "" : "\(key): ")\(rule)"
    }
}
