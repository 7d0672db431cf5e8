/// A document that cannot be a pattern: where it broke (a JSON path such as
/// `Pattern[3].Event.EventDuration`) and the rule it broke.
public struct PatternLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var rule: String

    public init(path: String, rule: String) {
        self.path = path
        self.rule = rule
    }

    public var description: String { "\(path): \(rule)" }
}

/// Something the loader changed or skipped while following Apple's rules
/// (out of range → clamped, unknown key → ignored), reported with its JSON path.
public struct PatternWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case clamped, ignoredKey, ignoredValue, duplicate, compatibility
    }

    public var path: String
    public var kind: Kind
    public var message: String

    public init(path: String, kind: Kind, message: String) {
        self.path = path
        self.kind = kind
        self.message = message
    }

    public var description: String { "warning: \(path): \(message)" }
}

/// A loaded pattern and everything the loader had to say about it.
public struct LoadedPattern: Sendable {
    public var pattern: HapticPattern
    public var warnings: [PatternWarning]

    public init(pattern: HapticPattern, warnings: [PatternWarning]) {
        self.pattern = pattern
        self.warnings = warnings
    }
}

/// Bounds that keep a hostile or broken file from exhausting memory or time:
/// each is far above any real pattern, and crossing one is a clear error.
public struct PatternLimits: Sendable {
    public var json: JSONParser.Limits
    /// Events, parameters and curves together.
    public var maxEntries: Int
    public var maxControlPointsPerCurve: Int
    /// No time in a pattern may lie beyond this many seconds (an hour).
    public var maxTime: Double

    public init(
        json: JSONParser.Limits = .init(maxBytes: 16 << 20, maxDepth: 32, maxElements: 2_000_000),
        maxEntries: Int = 100_000, maxControlPointsPerCurve: Int = 10_000, maxTime: Double = 3600
    ) {
        self.json = json
        self.maxEntries = maxEntries
        self.maxControlPointsPerCurve = maxControlPointsPerCurve
        self.maxTime = maxTime
    }
}
