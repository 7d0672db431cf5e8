import JSON

/// Why a profile could not be used. Every case names the file and, where it
/// applies, the JSON field (dotted path, e.g. `lra.resonantFrequencyHz`) or the
/// line and column; `description` is one line a command can print as is. Text
/// from the file is quoted and cut (`Echo`), never echoed raw.
public enum ActuatorProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(name: String, searched: [String])
    case unreadable(file: String, reason: String)
    case tooLarge(file: String, bytes: Int, limit: Int)
    case invalidJSON(file: String, line: Int, column: Int, reason: String)
    case missingField(file: String, field: String)
    case wrongType(file: String, field: String, expected: String)
    case outOfRange(file: String, field: String, value: Double, allowed: String)
    case invalidValue(file: String, field: String, value: String, allowed: [String])
    case unknownField(file: String, field: String)
    case duplicateField(file: String, field: String)
    /// A known field that the profile's other fields rule out (`erm` on an LRA).
    case fieldNotAllowed(file: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let name, let searched):
            return "no actuator profile \(Echo.quoted(name)); looked in: \(searched.joined(separator: ", "))"
        case .unreadable(let f, let r): return "\(f): cannot read (\(r))"
        case .tooLarge(let f, let bytes, let limit): return "\(f): \(bytes) bytes; a profile is at most \(limit)"
        case .invalidJSON(let f, let line, let column, let r): return "\(f): line \(line), column \(column): not valid JSON: \(r)"
        case .missingField(let f, let field): return "\(f): missing required field '\(field)'"
        case .wrongType(let f, let field, let expected): return "\(f): field '\(field)' must be \(expected)"
        case .outOfRange(let f, let field, let v, let allowed): return "\(f): field '\(field)' is \(v), allowed \(allowed)"
        case .invalidValue(let f, let field, let v, let allowed):
            return "\(f): field '\(field)' is \(Echo.quoted(v)), allowed: \(allowed.joined(separator: ", "))"
        case .unknownField(let f, let field): return "\(f): unknown field '\(field)' (typo?)"
        case .duplicateField(let f, let field): return "\(f): field '\(field)' appears twice"
        case .fieldNotAllowed(let f, let field, let reason): return "\(f): field '\(field)' is not allowed: \(reason)"
        }
    }
}
