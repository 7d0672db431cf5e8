import Measurements

/// A verdict, worst last: a run's is the worst of its tests'.
public enum Verdict: String, Sendable, Comparable, CaseIterable {
    case pass = "PASS"
    /// Inside the limits, within the marginal band of one.
    case marginal = "MARGINAL"
    case skipped = "SKIP"
    /// A measurement out of its limits, or a procedure that reported FAIL: the part.
    case fail = "FAIL"
    /// The test could not come to a verdict: the device vanished, a step timed out or
    /// could not run. Says nothing about the part.
    case error = "ERROR"

    var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: Verdict, b: Verdict) -> Bool { a.rank < b.rank }
}

extension Limit {
    /// The verdict on `value`: FAIL outside [low, high], MARGINAL within `marginal` of
    /// a limit it is inside, else PASS.
    public func verdict(_ value: Double) -> Verdict {
        if let low, value < low { return .fail }
        if let high, value > high { return .fail }
        if let m = marginal {
            if let low, value < low + m { return .marginal }
            if let high, value > high - m { return .marginal }
        }
        return .pass
    }

    /// "50 ≤ x ≤ 80 ms".
    public var text: String {
        switch (low, high) {
        case let (l?, h?): "\(Self.format(l)) ≤ x ≤ \(Self.format(h))\(unit.suffix)"
        case let (l?, nil): "x ≥ \(Self.format(l))\(unit.suffix)"
        case let (nil, h?): "x ≤ \(Self.format(h))\(unit.suffix)"
        case (nil, nil): "no limit"
        }
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }
}

extension MeasurementUnit {
    /// " ms" after a number; nothing for a pure number (unit one: "Q = 10.52").
    public var suffix: String { self == .one ? "" : " \(rawValue)" }
}
