/// Reads typed values out of a `JSONValue` while tracking the JSON path, so every
/// error and warning names exactly where in the document it arose.
struct JSONCursor {
    let value: JSONValue
    let path: String

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    func element(_ index: Int) -> String { "\(path)[\(index)]" }

    func object() throws(PatternLoadError) -> [(key: String, value: JSONValue)] {
        guard case .object(let members) = value else {
            throw PatternLoadError(path: displayPath, rule: "expected an object, found \(value.typeDescription)")
        }
        return members
    }

    func array() throws(PatternLoadError) -> [JSONValue] {
        guard case .array(let items) = value else {
            throw PatternLoadError(path: displayPath, rule: "expected an array, found \(value.typeDescription)")
        }
        return items
    }

    func finiteNumber() throws(PatternLoadError) -> Double {
        guard case .number(let number) = value else {
            throw PatternLoadError(path: displayPath, rule: "expected a number, found \(value.typeDescription)")
        }
        guard number.isFinite else {
            throw PatternLoadError(path: displayPath, rule: "\(number) is not a finite number")
        }
        return number
    }

    func string() throws(PatternLoadError) -> String {
        guard case .string(let text) = value else {
            throw PatternLoadError(path: displayPath, rule: "expected a string, found \(value.typeDescription)")
        }
        return text
    }

    func bool() throws(PatternLoadError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        // AHAP files written by some tools use 0/1 for booleans.
        case .number(let number) where number == 0 || number == 1: return number == 1
        default:
            throw PatternLoadError(path: displayPath, rule: "expected a boolean, found \(value.typeDescription)")
        }
    }

    var displayPath: String { path.isEmpty ? "(root)" : path }
}

/// The members of one JSON object, looked up by key; what is never looked up is
/// reported as ignored, which is how unknown keys get their warnings.
struct ObjectReader {
    let cursor: JSONCursor
    private let members: [(key: String, value: JSONValue)]
    private var used = Set<String>()

    init(_ cursor: JSONCursor) throws(PatternLoadError) {
        self.cursor = cursor
        members = try cursor.object()
    }

    /// The value of `key` (the last one if the key repeats, as JSON parsers do).
    mutating func take(_ key: String) -> JSONCursor? {
        used.insert(key)
        guard let member = members.last(where: { $0.key == key }) else { return nil }
        return JSONCursor(value: member.value, path: cursor.child(key))
    }

    mutating func require(_ key: String, rule: String) throws(PatternLoadError) -> JSONCursor {
        guard let found = take(key) else { throw PatternLoadError(path: cursor.child(key), rule: rule) }
        return found
    }

    var keys: [String] { members.map(\.key) }

    func unusedAndDuplicateWarnings() -> [PatternWarning] {
        var warnings: [PatternWarning] = []
        var seen = Set<String>()
        for member in members {
            if !used.contains(member.key) {
                warnings.append(PatternWarning(path: cursor.child(member.key), kind: .ignoredKey,
                                               message: "unknown key \"\(member.key)\" ignored"))
            } else if !seen.insert(member.key).inserted {
                warnings.append(PatternWarning(path: cursor.child(member.key), kind: .duplicate,
                                               message: "key repeated; the last value is used"))
            }
        }
        return warnings
    }
}
