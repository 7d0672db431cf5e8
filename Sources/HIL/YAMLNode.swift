import Haptics

/// A strict view of one YAML node for the bench and script readers: every value is
/// asked for with the type it must have, every mapping says which keys it allows, and
/// every complaint carries the file, the node's line and its key path.
/// A key the reader did not ask for is an error, not ignored: a misspelt `timeout`
/// would otherwise run a test without one.
struct YAMLNode {
    let node: YAMLTree
    let file: String
    let path: String

    /// Parses `text` (`YAMLComposer`: bounded, whatever it holds); an empty document is
    /// an error, as is YAML that does not parse (its line from libyaml's mark).
    static func root(_ text: String, file: String) throws(ScriptError) -> YAMLNode {
        guard let node = try YAMLComposer.compose(text, file: file) else {
            throw ScriptError(file: file, line: nil, key: "", rule: "the file is empty")
        }
        return YAMLNode(node: node, file: file, path: "")
    }

    var line: Int? { node.line }

    func error(_ rule: String) -> ScriptError { ScriptError(file: file, line: line, key: path, rule: rule) }

    func child(_ key: String, _ node: YAMLTree) -> YAMLNode {
        YAMLNode(node: node, file: file, path: Self.path(path, key: key))
    }

    /// `parent.key` ("tests[0].timeout"), the key cut short and made printable: a key
    /// path goes into every message about what is under it.
    static func path(_ parent: String, key: String) -> String {
        let key = echoText(key)
        return parent.isEmpty ? key : "\(parent).\(key)"
    }

    // MARK: scalars

    var scalar: YAMLScalar? {
        if case .scalar(let s) = node.content { return s }
        return nil
    }

    func string() throws(ScriptError) -> String {
        guard let s = scalar else { throw error("must be a string, not \(kind)") }
        return s.text
    }

    func number() throws(ScriptError) -> Double {
        guard let x = scalar?.number, x.isFinite else {
            throw error("must be a number, not \(describe)")
        }
        return x
    }

    func positiveNumber() throws(ScriptError) -> Double {
        let x = try number()
        guard x > 0 else { throw error("must be greater than 0, not \(describe)") }
        return x
    }

    /// A time in seconds: above 0 and at most `TimeLimits.maxSeconds`.
    func seconds() throws(ScriptError) -> Double {
        let x = try number()
        guard x > 0, x <= TimeLimits.maxSeconds else { throw error("seconds above 0 and \(TimeLimits.maxText), not \(describe)") }
        return x
    }

    func count(in range: ClosedRange<Int>) throws(ScriptError) -> Int {
        guard let n = scalar?.int else { throw error("must be a whole number, not \(describe)") }
        guard range.contains(n) else { throw error("must be \(range.lowerBound)...\(range.upperBound), not \(n)") }
        return n
    }

    func bool() throws(ScriptError) -> Bool {
        guard let b = scalar?.bool else { throw error("must be true or false, not \(describe)") }
        return b
    }

    func oneOf<T: RawRepresentable & CaseIterable>(_: T.Type) throws(ScriptError) -> T where T.RawValue == String {
        let s = try string()
        guard let v = T(rawValue: s) else {
            throw error("must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), not \(Self.echo(s))")
        }
        return v
    }

    // MARK: collections

    func sequence() throws(ScriptError) -> [YAMLNode] {
        guard case .sequence(let seq) = node.content else { throw error("must be a list, not \(kind)") }
        return seq.enumerated().map { YAMLNode(node: $0.element, file: file, path: "\(path)[\($0.offset)]") }
    }

    func strings() throws(ScriptError) -> [String] {
        var out: [String] = []
        for item in try sequence() { out.append(try item.string()) }
        return out
    }

    /// The mapping's values by key, refusing keys outside `allowed`, duplicates and
    /// keys that are not strings.
    /// `retired`: keys the format no longer has, with what to do instead.
    func mapping(allowed: [String], retired: [String: String] = [:]) throws(ScriptError) -> YAMLMapping {
        guard case .mapping(let m) = node.content else { throw error("must be a mapping (key: value), not \(kind)") }
        var values: [String: YAMLNode] = [:]
        for pair in m {
            guard case .scalar(let ks) = pair.key.content else { throw YAMLNode(node: pair.key, file: file, path: path).error("keys must be strings, not \(YAMLNode(node: pair.key, file: file, path: path).kind)") }
            let key = ks.text
            let at = YAMLNode(node: pair.key, file: file, path: Self.path(path, key: key))
            guard allowed.contains(key) else {
                if key == "<<" { throw at.error("merge keys (<<) are not part of this format: write the keys out") }
                if let instead = retired[key] { throw at.error("no longer used: \(instead)") }
                throw at.error("unknown key\(Suggestion.hint(for: key, among: allowed)) (allowed here: \(allowed.joined(separator: ", ")))")
            }
            guard values[key] == nil else { throw at.error("given twice") }
            values[key] = child(key, pair.value)
        }
        return YAMLMapping(owner: self, values: values)
    }

    var kind: String {
        switch node.content {
        case .scalar: "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    var describe: String {
        if let s = scalar { return Self.echo(s.text) }
        return kind
    }

    /// `s` quoted, cut short and made printable, for a message.
    static func echo(_ s: String) -> String { "\"" + echoText(s) + "\"" }

    /// `s` cut to 40 characters and made printable (control characters as "?").
    static func echoText(_ s: String) -> String {
        let cut = s.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(s.unicodeScalars.prefix(40))) + "…" : s
        return cut.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : String($0) }.joined()
    }
}

/// A mapping whose keys were checked: required and optional values by key.
struct YAMLMapping {
    let owner: YAMLNode
    let values: [String: YAMLNode]

    subscript(_ key: String) -> YAMLNode? { values[key] }

    func required(_ key: String) throws(ScriptError) -> YAMLNode {
        guard let v = values[key] else { throw owner.error("missing key \(key)") }
        return v
    }
}
