import Haptics

/// Bounds on the work of compiling while streaming. The engine runs one compiler
/// step per control step (1 ms by default) on the clock, so what a step costs must
/// not grow with what a client hands in: a step costs O(k log k) in the k
/// transients due in it and O(p) in the p players the engine mixes into it. Both are
/// bounded here and checked before any of the work is done.
public struct CompilationLimits: Sendable, Equatable {
    /// At most this many transients may start within any one control step of a
    /// player's timeline (at its playback rate, across loop wraps). Each start is
    /// up to two chip writes (RTP, and OL_LRA_PERIOD on a DRV2605L) and a board
    /// takes a few a millisecond (`BoardIntake`), so the compiler merges the starts
    /// of a step into what its pacing lets through anyway; and a burst lasts several
    /// milliseconds, so each would only cut the one before it short.
    public var transientsPerStep: Int
    /// At most this many players may be mixed into one step. Intensities add,
    /// clipped at 1, so more parts sound no different; each costs its work at
    /// every step.
    public var contributionsPerStep: Int

    public init(transientsPerStep: Int = 8, contributionsPerStep: Int = 32) {
        self.transientsPerStep = transientsPerStep
        self.contributionsPerStep = contributionsPerStep
    }

    public static let standard = CompilationLimits()

    /// Refuses `count` parts mixed into one step when the limit is lower.
    public func check(contributions count: Int) throws(CompilationError) {
        guard count <= contributionsPerStep else { throw .tooManyContributions(found: count, limit: contributionsPerStep) }
    }
}

extension DriveCompiler {
    /// Refuses a timeline that would hand one compiler step more transients than
    /// `limits.transientsPerStep`: the most transients in any window of one step,
    /// `stepMicroseconds × playbackRate` of timeline time, counted across loop wraps
    /// when the player loops over the timeline's first `loopLength` seconds (nil,
    /// or not a positive finite number: no loop). A playback rate that is not a
    /// positive finite number counts as every transient in one step. O(n log n) in
    /// the n transients; call it when a player is made and whenever its rate or
    /// loop changes.
    public static func checkWork(
        for timeline: Timeline, stepMicroseconds: Int64, playbackRate: Double = 1, loopLength: Double? = nil,
        limits: CompilationLimits = .standard
    ) throws(CompilationError) {
        // Transients in whole µs, as the compiler takes them (exact in a Double, so a
        // window's edge is not blurred by rounding); the loop as the player keeps it.
        let rate = playbackRate.isFinite && playbackRate > 0 ? playbackRate : .infinity
        let window = Double(max(0, stepMicroseconds)) * rate
        let loop = loopLength.flatMap { $0.isFinite && $0 > 0 ? $0 * 1e6 : nil }
        var times = timeline.transients.map { ($0.time * 1e6).rounded() }.filter { $0.isFinite && $0 >= 0 }
        if let loop { times.removeAll { $0 >= loop } }
        times.sort()
        guard !times.isEmpty else { return }
        let densest: (count: Double, at: Double)
        if let loop {
            // Whole loops in the window, plus the densest remainder around the wrap.
            let wholeLoops = (window / loop).rounded(.down)
            let remainder = window - wholeLoops * loop
            let wrapped = densestWindow(times + times.map { $0 + loop }, width: remainder, startsWithin: times.count)
            densest = (wholeLoops * Double(times.count) + wrapped.count, wrapped.at)
        } else {
            densest = densestWindow(times, width: window, startsWithin: times.count)
        }
        guard densest.count <= Double(limits.transientsPerStep) else {
            // A vanishing loop makes the count unbounded: reported as 10^15.
            let found = densest.count < 1e15 ? Int(densest.count) : 1_000_000_000_000_000
            throw .tooManyTransientsPerStep(
                found: found, limit: limits.transientsPerStep, atSeconds: densest.at / 1e6,
                stepMicroseconds: stepMicroseconds, playbackRate: playbackRate)
        }
    }

    /// The most of the sorted `times` in a window [t, t + width) starting at one of
    /// the first `startsWithin` of them, and where that window starts.
    private static func densestWindow(_ times: [Double], width: Double, startsWithin: Int) -> (count: Double, at: Double) {
        var best = (count: 0.0, at: times.first ?? 0)
        var end = 0
        for start in 0..<startsWithin {
            end = max(end, start)
            while end < times.count, times[end] - times[start] < width { end += 1 }
            if Double(end - start) > best.count { best = (Double(end - start), times[start]) }
        }
        return best
    }
}
