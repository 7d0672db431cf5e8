import Yams

/// A strict view of one YAML node for the bench and script readers: every value is
/// asked for with the type it must have, every mapping says which keys it allows, and
/// every complaint carries the file, the node's line (Yams' marks) and its key path.
/// A key the reader did not ask for is an error, not ignored: a misspelt `timeout`
/// would otherwise run a test without one.
struct YAMLNode {
    let node: Node
    let file: String
    let path: String

    /// Parses `text`; an empty document is an error, as is YAML that does not parse
    /// (its line from libyaml's mark).
    static func root(_ text: String, file: String) throws(ScriptError) -> YAMLNode {
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw ScriptError(file: file, line: Self.line(of: error), key: "", rule: "not valid YAML: \(Self.problem(of: error))")
        }
        guard let node else { throw ScriptError(file: file, line: nil, key: "", rule: "the file is empty") }
        return YAMLNode(node: node, file: file, path: "")
    }

    var line: Int? { node.mark?.line }

    func error(_ rule: String) -> ScriptError { ScriptError(file: file, line: line, key: path, rule: rule) }

    func child(_ key: String, _ node: Node) -> YAMLNode {
        YAMLNode(node: node, file: file, path: path.isEmpty ? key : "\(path).\(key)")
    }

    // MARK: scalars

    func string() throws(ScriptError) -> String {
        guard case .scalar(let s) = node else { throw error("must be a string, not \(kind)") }
        return s.string
    }

    func number() throws(ScriptError) -> Double {
        guard case .scalar = node, let x = node.float ?? node.int.map(Double.init), x.isFinite else {
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
        guard case .scalar = node, let n = node.int else { throw error("must be a whole number, not \(describe)") }
        guard range.contains(n) else { throw error("must be \(range.lowerBound)...\(range.upperBound), not \(n)") }
        return n
    }

    func bool() throws(ScriptError) -> Bool {
        guard case .scalar = node, let b = node.bool else { throw error("must be true or false, not \(describe)") }
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
        guard case .sequence(let seq) = node else { throw error("must be a list, not \(kind)") }
        return seq.enumerated().map { YAMLNode(node: $0.element, file: file, path: "\(path)[\($0.offset)]") }
    }

    func strings() throws(ScriptError) -> [String] {
        var out: [String] = []
        for item in try sequence() { out.append(try item.string()) }
        return out
    }

    /// The mapping's values by key, refusing keys outside `allowed`, duplicates and
    /// keys that are not strings.
    func mapping(allowed: [String]) throws(ScriptError) -> YAMLMapping {
        guard case .mapping(let m) = node else { throw error("must be a mapping (key: value), not \(kind)") }
        var values: [String: YAMLNode] = [:]
        for (k, v) in m {
            guard case .scalar(let ks) = k else { throw error("keys must be strings") }
            let key = ks.string
            let at = YAMLNode(node: k, file: file, path: path.isEmpty ? key : "\(path).\(key)")
            guard allowed.contains(key) else {
                throw at.error("unknown key (allowed here: \(allowed.joined(separator: ", ")))")
            }
            guard values[key] == nil else { throw at.error("given twice") }
            values[key] = child(key, v)
        }
        return YAMLMapping(owner: self, values: values)
    }

    var kind: String {
        // By accessor, not by `switch`: Yams 6 adds a case (aliases) that 5 lacks.
        if node.scalar != nil { return "a scalar" }
        if node.mapping != nil { return "a mapping" }
        if node.sequence != nil { return "a list" }
        return "an alias"
    }

    var describe: String {
        if case .scalar(let s) = node { return Self.echo(s.string) }
        return kind
    }

    static func echo(_ s: String) -> String {
        let cut = s.count > 40 ? String(s.prefix(40)) + "…" : s
        return "\"" + cut.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined() + "\""
    }

    static func line(of error: any Error) -> Int? {
        guard let e = error as? YamlError else { return nil }
        switch e {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return nil
        }
    }

    static func problem(of error: any Error) -> String {
        guard let e = error as? YamlError else { return "\(error)" }
        switch e {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _): return problem
        default: return "\(e)".split(separator: "\n").first.map(String.init) ?? "\(e)"
        }
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
