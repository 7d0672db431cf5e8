/// The longest time a test script or `hapbridge run`'s options may give: one week. A
/// test's or a step's `timeout`, `--timeout`, `--vanish-wait` and `--wait` are checked
/// against it where they are read (a file's line and key, or the option: exit 2); beyond
/// it a figure is a slip (`1e19`), and would overflow the clocks it is added to
/// (`ContinuousClock.now + .seconds(…)` traps past Int64 seconds).
public enum TimeLimits {
    public static let maxSeconds = 604_800.0

    /// "at most 604800 s (one week)", for a rule's text.
    public static let maxText = "at most \(Int(maxSeconds)) s (one week)"

    /// `seconds` as a duration, held to 0...maxSeconds (NaN as 0): what every use of a
    /// time the library was given goes through, so that a value from Swift code
    /// (`HILRunner.Options`, `BenchSession.Options`), which no loader checked, cannot trap.
    public static func duration(_ seconds: Double) -> Duration {
        .seconds(clamped(seconds))
    }

    public static func clamped(_ seconds: Double) -> Double {
        seconds > 0 ? min(seconds, maxSeconds) : 0
    }
}
