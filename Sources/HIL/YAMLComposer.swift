import CLibYAML
import Hex

/// Turns the text of a bench file or test script into a `YAMLTree` from libyaml's
/// events, in time and memory bounded by the text's length, whatever the text holds.
///
/// libyaml's parser is a state machine with its own stack, so it does not recurse; what
/// did was the composer on top of it (a node per level of the call stack: 5,000 levels
/// of `[` in a 10 kB file overflowed it) and the tree's release. This composer keeps its
/// own stack and refuses a node nested deeper than `Limits.maxDepth` as soon as its
/// start arrives, before reading further.
///
/// Anchors and aliases are kept (a suite may share a list of limits), but an alias
/// costs what it names: the document's size with every alias written out is counted as
/// the events arrive, and past `Limits.maxExpandedBytes` the document is refused (a
/// 210 kB file of aliases to aliases of a long string otherwise stood for gigabytes of
/// names, records and JUnit). An alias also counts for the depth of what it names.
///
/// One document per file; tags (`!!int 5`, `!x`) are refused: the format's keys say
/// what type each value is.
enum YAMLComposer {
    struct Limits: Sendable {
        /// Lists and mappings within each other: the formats need 8 (a limit's key in a
        /// step in a test); 32 leaves room for the formats to grow.
        var maxDepth = 32
        /// The document with every alias written out as the node it names: each scalar
        /// counts its bytes plus one, each list and mapping one. Four times the largest
        /// file read (`ScriptText.maxBytes`), which that file written out plainly never
        /// reaches (a scalar's text is no longer than its source, but for an escape
        /// such as `\L`: 1.5 times it).
        var maxExpandedBytes = 4 * ScriptText.maxBytes

        init() {}
    }

    /// The document `text` holds, or nil when it holds none (empty, or only comments).
    static func compose(_ text: String, file: String, limits: Limits = Limits()) throws(ScriptError) -> YAMLTree? {
        var composition = Composition(file: file, limits: limits)
        let bytes = Array(text.utf8)
        let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        defer { input.deallocate() }
        _ = input.initialize(from: bytes)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw ScriptError(file: file, line: nil, key: "", rule: "libyaml could not start (out of memory)") }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_input_string(&parser, input.baseAddress, bytes.count)
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else { throw composition.syntaxError(parser, input: bytes) }
            defer { yaml_event_delete(&event) }
            if try composition.take(event) { return composition.root }
        }
    }

    /// What the events built so far: the collections still open (innermost last), the
    /// anchors defined, the size written out.
    struct Composition {
        let file: String
        let limits: Limits

        struct Frame {
            var isMapping: Bool
            /// A mapping's keys and values alternate.
            var children: [YAMLTree] = []
            var line: Int
            var column: Int
            var anchor: String?
            /// The tallest child's height (0 when empty).
            var childHeight = 0
            /// `expanded` when it started, for an anchor's size.
            var expandedAtStart: Int
            /// Its key path from the root ("tests[2].steps").
            var path: String
        }

        /// What an anchor names: the node, its size written out, its height.
        struct Anchored {
            var tree: YAMLTree
            var size: Int
            var height: Int
        }

        var stack: [Frame] = []
        var anchors: [String: Anchored] = [:]
        var root: YAMLTree?
        var documents = 0
        /// The document's size so far with every alias written out.
        var expanded = 0

        init(file: String, limits: Limits) {
            self.file = file
            self.limits = limits
        }

        /// Takes one event; true at the stream's end.
        mutating func take(_ event: yaml_event_t) throws(ScriptError) -> Bool {
            let line = Int(event.start_mark.line) + 1, column = Int(event.start_mark.column) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return true
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                guard documents == 1 else { throw error(line, "a file holds one YAML document; a second one starts here (---)") }
            case YAML_SCALAR_EVENT:
                let s = event.data.scalar
                try refuseTag(s.tag, line)
                let text = s.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: s.length), as: UTF8.self) } ?? ""
                // "\0" in a double-quoted scalar: a path or name holding one would be cut there by the C library.
                guard !text.utf8.contains(0) else { throw error(line, "a NUL character (\\0) is not allowed in a value") }
                let size = text.utf8.count + 1
                try grow(by: size, line)
                let tree = YAMLTree(content: .scalar(YAMLScalar(text: text, isPlain: s.style == YAML_PLAIN_SCALAR_STYLE)), line: line, column: column)
                if let anchor = Self.string(s.anchor) { anchors[anchor] = Anchored(tree: tree, size: size, height: 1) }
                add(tree, height: 1)
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else { throw error(line, "the alias *\(YAMLNode.echoText(name)) names no anchor (&\(YAMLNode.echoText(name))) before it") }
                guard stack.count + anchored.height <= limits.maxDepth else {
                    throw error(line, "the alias *\(YAMLNode.echoText(name)) puts \(anchored.height) levels of lists and mappings at depth \(stack.count + 1): nested deeper than \(limits.maxDepth) levels")
                }
                try grow(by: anchored.size, line, alias: name)
                var tree = anchored.tree
                (tree.line, tree.column) = (line, column)
                add(tree, height: anchored.height)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let (tag, anchor) = isMapping ? (event.data.mapping_start.tag, event.data.mapping_start.anchor) : (event.data.sequence_start.tag, event.data.sequence_start.anchor)
                try refuseTag(tag, line)
                guard stack.count < limits.maxDepth else { throw error(line, "nested deeper than \(limits.maxDepth) levels of lists and mappings") }
                try grow(by: 1, line)
                stack.append(
                    Frame(isMapping: isMapping, line: line, column: column, anchor: Self.string(anchor), expandedAtStart: expanded - 1, path: childPath))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else { break }
                let content: YAMLTree.Content
                if frame.isMapping {
                    content = .mapping(stride(from: 0, to: frame.children.count - 1, by: 2).map { YAMLPair(key: frame.children[$0], value: frame.children[$0 + 1]) })
                } else {
                    content = .sequence(frame.children)
                }
                let tree = YAMLTree(content: content, line: frame.line, column: frame.column)
                let height = frame.childHeight + 1
                if let anchor = frame.anchor { anchors[anchor] = Anchored(tree: tree, size: expanded - frame.expandedAtStart, height: height) }
                add(tree, height: height)
            default:
                break  // the stream's start, a document's end, an empty event
            }
            return false
        }

        mutating func add(_ tree: YAMLTree, height: Int) {
            guard !stack.isEmpty else {
                root = tree
                return
            }
            stack[stack.count - 1].children.append(tree)
            stack[stack.count - 1].childHeight = max(stack[stack.count - 1].childHeight, height)
        }

        mutating func grow(by size: Int, _ line: Int, alias: String? = nil) throws(ScriptError) {
            expanded += size
            guard expanded <= limits.maxExpandedBytes else {
                let with = alias.map { "the alias *\(YAMLNode.echoText($0)) takes" } ?? "it takes"
                throw error(
                    line,
                    "\(with) the document past \(limits.maxExpandedBytes >> 20) MiB with every alias written out as the node it names: aliases may share a node, not multiply the document")
            }
        }

        func refuseTag(_ tag: UnsafeMutablePointer<yaml_char_t>?, _ line: Int) throws(ScriptError) {
            guard let tag = Self.string(tag) else { return }
            throw error(line, "a tag (\(YAMLNode.echoText(tag))) is not part of this format: write the value as it is (each key says what type it takes)")
        }

        /// The key path of the next node the innermost collection gets.
        var childPath: String {
            guard let top = stack.last else { return "" }
            if !top.isMapping { return "\(top.path)[\(top.children.count)]" }
            // A key's own position is its mapping's; a value's is under its key.
            guard top.children.count % 2 == 1, let key = top.children.last else { return top.path }
            guard case .scalar(let s) = key.content else { return top.path }
            return YAMLNode.path(top.path, key: s.text)
        }

        func error(_ line: Int?, _ rule: String) -> ScriptError { ScriptError(file: file, line: line, key: childPath, rule: rule) }

        /// libyaml's complaint, where it is and what it was in: "did not find expected
        /// ',' or ']' (while parsing a flow sequence from line 3)".
        func syntaxError(_ parser: yaml_parser_t, input: [UInt8]) -> ScriptError {
            let problem = parser.problem.map { String(cString: $0) } ?? "it does not parse"
            switch parser.error {
            case YAML_MEMORY_ERROR:
                return ScriptError(file: file, line: nil, key: "", rule: "libyaml ran out of memory")
            case YAML_READER_ERROR:
                // Not text libyaml reads (an invalid UTF-8 sequence, a control character):
                // where, from the byte offset.
                let offset = min(parser.problem_offset, input.count)
                let line = input[..<offset].reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                let value = parser.problem_value >= 0 ? " (\(Hex.literal(parser.problem_value)))" : ""
                return error(line, "not valid YAML: \(problem)\(value) at byte \(offset)")
            default:
                let context = parser.context.map { " (\(String(cString: $0)) from line \(parser.context_mark.line + 1))" } ?? ""
                return error(Int(parser.problem_mark.line) + 1, "not valid YAML: \(problem)\(context)")
            }
        }

        static func string(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            p.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
    }
}
