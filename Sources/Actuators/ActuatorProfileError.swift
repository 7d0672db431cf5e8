/// Why a profile could not be used. Every case names the file and, where it
/// applies, the JSON field (dotted path, e.g. `lra.resonantFrequencyHz`).
public enum ActuatorProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(name: String, searched: [String])
    case unreadable(file: String, reason: String)
    case invalidJSON(file: String, reason: String)
    case missingField(file: String, field: String)
    case wrongType(file: String, field: String, expected: String)
    case outOfRange(file: String, field: String, value: Double, allowed: String)
    case invalidValue(file: String, field: String, value: String, allowed: [String])
    case unknownField(file: String, field: String)

    public var description: String {
        switch self {
        case .notFound(let name, let searched):
            return "no actuator profile '\(name)'; looked in: \(searched.joined(separator: ", "))"
        case .unreadable(let f, let r): return "\(f): cannot read (\(r))"
        case .invalidJSON(let f, let r): return "\(f): not valid JSON (\(r))"
        case .missingField(let f, let field): return "\(f): missing required field '\(field)'"
        case .wrongType(let f, let field, let expected): return "\(f): field '\(field)' must be \(expected)"
        case .outOfRange(let f, let field, let v, let allowed): return "\(f): field '\(field)' is \(v), allowed \(allowed)"
        case .invalidValue(let f, let field, let v, let allowed):
            return "\(f): field '\(field)' is '\(v)', allowed: \(allowed.joined(separator: ", "))"
        case .unknownField(let f, let field): return "\(f): unknown field '\(field)' (typo?)"
        }
    }
}
