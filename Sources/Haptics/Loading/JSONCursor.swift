/// One step of a JSON path. Paths are linked nodes, spelled out only when an error
/// or warning needs them: building a string for every value read would cost more
/// than parsing it.
final class JSONPathNode {
    let parent: JSONPathNode?
    let key: String?
    let index: Int

    init(parent: JSONPathNode?, key: String?, index: Int = 0) {
        self.parent = parent
        self.key = key
        self.index = index
    }

    var description: String {
        var parts: [String] = []
        var node: JSONPathNode? = self
        while let current = node {
            parts.append(current.key.map { key in
                let shown = Echo.pathComponent(key)
                return current.parent == nil ? shown : "." + shown
            } ?? "[\(current.index)]")
            node = current.parent
        }
        return parts.reversed().joined()
    }
}

/// Reads typed values out of a `JSONValue` while tracking the JSON path, so every
/// error and warning names exactly where in the document it arose.
struct JSONCursor {
    let value: JSONValue
    let node: JSONPathNode?

    init(root value: JSONValue) {
        self.value = value
        node = nil
    }

    init(value: JSONValue, node: JSONPathNode?) {
        self.value = value
        self.node = node
    }

    var path: String { node?.description ?? "" }
    func child(_ key: String) -> String { JSONPathNode(parent: node, key: key).description }
    func element(_ index: Int) -> String { JSONPathNode(parent: node, key: nil, index: index).description }

    func member(_ key: String, _ value: JSONValue) -> JSONCursor {
        JSONCursor(value: value, node: JSONPathNode(parent: node, key: key))
    }

    func item(_ index: Int, _ value: JSONValue) -> JSONCursor {
        JSONCursor(value: value, node: JSONPathNode(parent: node, key: nil, index: index))
    }

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
/// reported as ignored, which is how unknown keys get their warnings. Objects in
/// patterns have a handful of keys, so a linear scan and a bit mask beat hashing.
struct ObjectReader {
    let cursor: JSONCursor
    private let members: [(key: String, value: JSONValue)]
    private var usedMask: UInt64 = 0
    private var usedBeyond64: Set<Int> = []

    init(_ cursor: JSONCursor) throws(PatternLoadError) {
        self.cursor = cursor
        members = try cursor.object()
    }

    private mutating func markUsed(_ index: Int) {
        if index < 64 { usedMask |= 1 << UInt64(index) } else { usedBeyond64.insert(index) }
    }

    private func isUsed(_ index: Int) -> Bool {
        index < 64 ? usedMask & (1 << UInt64(index)) != 0 : usedBeyond64.contains(index)
    }

    /// The value of `key` (the last one if the key repeats, as JSON parsers do).
    mutating func take(_ key: String) -> JSONCursor? {
        var found: Int?
        for index in members.indices where members[index].key == key {
            markUsed(index)
            found = index
        }
        return found.map { cursor.member(key, members[$0].value) }
    }

    mutating func require(_ key: String, rule: @autoclosure () -> String) throws(PatternLoadError) -> JSONCursor {
        guard let found = take(key) else { throw PatternLoadError(path: cursor.child(key), rule: rule()) }
        return found
    }

    func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    /// For formats whose own reader refuses a repeated field (serde, for .haptic):
    /// a key of `fields` given twice is an error; other keys are left to the
    /// unknown-key warnings.
    func rejectRepeated(_ fields: [String], why: String) throws(PatternLoadError) {
        var seen: [String] = []
        for member in members where fields.contains(member.key) {
            guard !seen.contains(member.key) else {
                throw PatternLoadError(path: cursor.child(member.key), rule: "key repeated; \(why)")
            }
            seen.append(member.key)
        }
    }

    var keys: [String] { members.map(\.key) }

    /// Warnings for keys never taken (with a suggestion among `known`, the keys this
    /// object may hold) and for repeated keys.
    func unusedAndDuplicateWarnings(known: [String] = []) -> [PatternWarning] {
        var warnings: [PatternWarning] = []
        // Taken keys are the few this object may hold, so a list finds repeats
        // without hashing, however many times a hostile file repeats one.
        var takenKeys: [String] = []
        for (index, member) in members.enumerated() {
            if !isUsed(index) {
                warnings.append(PatternWarning(
                    path: cursor.child(member.key), kind: .ignoredKey,
                    message: "unknown key \(Echo.quoted(member.key)) ignored" + Suggestion.hint(for: member.key, among: known)))
            } else if takenKeys.contains(member.key) {
                warnings.append(PatternWarning(path: cursor.child(member.key), kind: .duplicate,
                                               message: "key repeated; the last value is used"))
            } else {
                takenKeys.append(member.key)
            }
        }
        return warnings
    }
}
