import Haptics

/// One player's position over engine time, and what it contributes at a step.
///
/// Pattern time τ runs at `rate` (advanced players' playbackRate) from an anchor:
/// τ(T) = anchorPattern + (T − anchorEngine) × rate. Every operation (start, stop,
/// pause, resume, seek, rate) re-anchors at the engine time it takes effect, so the
/// position is continuous and exact whatever the order of operations.
///
/// Every operation is an action at an engine time, applied when a step reaches it,
/// never a change to the state "now": so the scheduler can take a snapshot at any
/// step, go back to it, add an operation at a later time and step forward again, and
/// everything before that time comes out exactly as it did (the engine's rewind).
struct PlayerPlayback: Sendable {
    enum Action: Sendable, Equatable {
        case start
        case stop
        case pause
        case resume
        /// Core Haptics' seek: to this pattern time (µs).
        case seek(toPattern: Double)
        case rate(Double)
        case mute(Bool)
        /// Loop end in pattern seconds; 0 = the pattern's end.
        case loop(enabled: Bool, end: Double)
        /// Drops what was scheduled before it (actions and parameters) and goes idle.
        case cancel
    }

    enum State: Sendable, Equatable {
        case idle
        case playing(anchorEngine: Int64, anchorPattern: Double)
        case paused(atPattern: Double)
    }

    /// What a player adds to the mix at one step.
    struct Contribution: Sendable {
        var intensity: Double
        var sharpness: Double
        var startedAt: Int64
        var transients: [(time: Int64, intensity: Double, sharpness: Double)]
    }

    /// Something the engine must tell the player's owner.
    enum Notice: Sendable, Equatable {
        case finished(at: Int64)
        case stopped(at: Int64)
    }

    let id: Int
    let advanced: Bool
    let timeline: Timeline
    /// Pattern µs of each transient, in order.
    private let transientTimes: [Double]
    /// Pattern duration, µs.
    let duration: Double

    var state: State = .idle
    var rate = 1.0
    var loopEnabled = false
    /// Pattern seconds; 0 = the pattern's end.
    var loopEnd = 0.0
    var isMuted = false
    var intensityControl = ParameterTrack(defaultValue: 1)
    var sharpnessControl = ParameterTrack(defaultValue: 0)
    /// Pending actions, in time order (same-time actions keep their call order); each
    /// carries its call order, which `cancel` needs to tell earlier calls from later.
    private(set) var actions: [(time: Int64, order: Int, action: Action)] = []
    /// Call order of the next operation (actions and parameter entries share it).
    private(set) var nextOrder = 0
    /// Where playback starts next time `start` takes effect (set by seek while idle).
    var startOffset = 0.0
    private(set) var startedAt: Int64 = 0
    /// Pattern time reached at the previous step (transients are taken in (prev, now]).
    private var lastPattern: Double?

    init(id: Int, advanced: Bool, timeline: Timeline) {
        self.id = id
        self.advanced = advanced
        self.timeline = timeline
        // The renderer lists transients in time order; the binary search relies on it.
        transientTimes = timeline.transients.map { $0.time * 1e6 }
        duration = timeline.duration * 1e6
    }

    /// Playing, paused, or idle with a start still to come.
    var isActive: Bool {
        if case .idle = state { return actions.contains { $0.action == .start } }
        return true
    }

    mutating func schedule(_ action: Action, at time: Int64) {
        let i = actions.firstIndex { $0.time > time } ?? actions.endIndex
        actions.insert((time, nextOrder, action), at: i)
        nextOrder += 1
    }

    /// A player-level HapticIntensityControl from `time`, in call order.
    mutating func setIntensityControl(_ value: Double, at time: Int64) {
        intensityControl.set(value, at: time, order: nextOrder)
        nextOrder += 1
    }

    mutating func setSharpnessControl(_ value: Double, at time: Int64) {
        sharpnessControl.set(value, at: time, order: nextOrder)
        nextOrder += 1
    }

    mutating func intensityCurve(_ points: [(Int64, Double)], at time: Int64) {
        intensityControl.curve(points, at: time, order: nextOrder)
        nextOrder += 1
    }

    mutating func sharpnessCurve(_ points: [(Int64, Double)], at time: Int64) {
        sharpnessControl.curve(points, at: time, order: nextOrder)
        nextOrder += 1
    }

    /// Everything: idle, nothing scheduled (the engine's stop and reset).
    mutating func cancelAll() {
        actions.removeAll()
        intensityControl.removeAll()
        sharpnessControl.removeAll()
        state = .idle
        lastPattern = nil
    }

    /// Loop length in pattern µs, or nil when not looping.
    var loopLength: Double? {
        guard loopEnabled else { return nil }
        let end = loopEnd > 0 ? min(loopEnd * 1e6, duration) : duration
        return end > 0 ? end : nil
    }

    func patternTime(at t: Int64) -> Double? {
        switch state {
        case .idle: return nil
        case .paused(let p): return p
        case .playing(let ae, let ap): return ap + Double(t - ae) * rate
        }
    }

    /// Re-anchors so a rate change or seek keeps or sets the position at `t`.
    mutating func reanchor(at t: Int64, pattern: Double? = nil) {
        switch state {
        case .idle: if let p = pattern { startOffset = p }
        case .paused(let p): state = .paused(atPattern: pattern ?? p)
        case .playing: state = .playing(anchorEngine: t, anchorPattern: pattern ?? patternTime(at: t) ?? 0)
        }
        if let p = pattern { lastPattern = p - 1e-9 }
    }

    /// Applies the actions due by `t`, then samples. Notices say when it ended.
    /// Transients before an action's moment play before the action takes effect (a
    /// stop at T never swallows a tap at T − 0.3 ms that fell between two steps).
    mutating func step(at t: Int64, notices: inout [Notice]) -> Contribution? {
        var transients: [(Int64, Double, Double)] = []
        while let first = actions.first, first.time <= t {
            collectBefore(first.time, into: &transients)
            actions.removeFirst()
            apply(first.action, order: first.order, at: first.time, notices: &notices)
        }
        guard case .playing(let ae, let ap) = state else {
            return transients.isEmpty ? nil : contribution(intensity: 0, sharpness: 0, transients: transients, at: t)
        }
        var tau = ap + Double(t - ae) * rate
        if let length = loopLength {
            // Transients in (last, tau] across any loop wraps, then fold tau back.
            let from = lastPattern ?? (tau - 1e-9)
            collectTransients(fromUnfolded: from, to: tau, loop: length, stepEnd: t, tauNow: tau, into: &transients)
            tau = tau.truncatingRemainder(dividingBy: length)
            lastPattern = tau
            // Keep the anchor near the present so the unfolded time stays small.
            if ap + Double(t - ae) * rate >= length { state = .playing(anchorEngine: t, anchorPattern: tau) }
        } else {
            if tau >= duration {
                let end = ae + Int64(((duration - ap) / rate).rounded(.up))
                collectTransients(fromUnfolded: lastPattern ?? (ap - 1e-9), to: duration, loop: nil, stepEnd: t, tauNow: tau, into: &transients)
                state = .idle
                lastPattern = nil
                notices.append(.finished(at: max(end, ae)))
                // Transients at the very end still play.
                return transients.isEmpty ? nil
                    : contribution(intensity: 0, sharpness: 0, transients: transients, at: t)
            }
            collectTransients(fromUnfolded: lastPattern ?? (tau - 1e-9), to: tau, loop: nil, stepEnd: t, tauNow: tau, into: &transients)
            lastPattern = tau
        }
        let k = min(timeline.sampleCount - 1, max(0, Int((tau / 1e6 * timeline.sampleRate).rounded(.down))))
        let i = timeline.sampleCount > 0 ? timeline.intensity[k] : 0
        let s = timeline.sampleCount > 0 ? timeline.sharpness[k] : 0
        return contribution(intensity: i, sharpness: s, transients: transients, at: t)
    }

    /// Takes the transients strictly before engine time `te` (an action's moment),
    /// so the step that applies the action still plays them.
    private mutating func collectBefore(_ te: Int64, into out: inout [(Int64, Double, Double)]) {
        guard case .playing(let ae, let ap) = state else { return }
        let tauAt = ap + Double(te - ae) * rate
        // Pattern µs just short of the action (1 ns): a transient exactly at it is left
        // to the step, after the action, as it always was.
        let before = tauAt - 1e-3
        if let length = loopLength {
            let from = lastPattern ?? (before - 1e-9)
            collectTransients(fromUnfolded: from, to: before, loop: length, stepEnd: te, tauNow: tauAt, into: &out)
            lastPattern = before.truncatingRemainder(dividingBy: length)
        } else if before < duration {
            collectTransients(fromUnfolded: lastPattern ?? (before - 1e-9), to: before, loop: nil, stepEnd: te, tauNow: tauAt, into: &out)
            lastPattern = before
        }
    }

    private func contribution(intensity i: Double, sharpness s: Double, transients: [(Int64, Double, Double)], at t: Int64) -> Contribution {
        if isMuted { return Contribution(intensity: 0, sharpness: s, startedAt: startedAt, transients: []) }
        let ic = intensityControl.value(at: t), sc = sharpnessControl.value(at: t)
        return Contribution(
            intensity: clamp01(i * ic), sharpness: clamp01(s + sc), startedAt: startedAt,
            transients: transients.map { ($0.0, clamp01($0.1 * intensityControl.value(at: $0.0)), clamp01($0.2 + sharpnessControl.value(at: $0.0))) })
    }

    /// Transients with pattern time in (from, to], unfolded across loops, each at its
    /// engine time (measured back from the step by the playback rate).
    private func collectTransients(
        fromUnfolded from: Double, to: Double, loop: Double?, stepEnd t: Int64, tauNow: Double,
        into out: inout [(Int64, Double, Double)]
    ) {
        guard to > from, !transientTimes.isEmpty else { return }
        let length = loop ?? .infinity
        var base = loop.map { (from / $0).rounded(.down) * $0 } ?? 0
        while base <= to {
            // transientTimes is in time order: start at the first one after `from`
            // (a step looks at a millisecond of a pattern that may hold 100,000 taps).
            var index = firstTransient(after: from - base)
            while index < transientTimes.count {
                let p = transientTimes[index]
                let unfolded = base + p
                guard p < length, unfolded <= to else { break }
                let engineTime = t - Int64(((tauNow - unfolded) / rate).rounded())
                let tr = timeline.transients[index]
                out.append((engineTime, tr.intensity, tr.sharpness))
                index += 1
            }
            guard let l = loop else { break }
            base += l
        }
    }

    /// Index of the first transient strictly after pattern µs `p` (binary search).
    private func firstTransient(after p: Double) -> Int {
        var lo = 0, hi = transientTimes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transientTimes[mid] > p { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    private mutating func apply(_ action: Action, order: Int, at t: Int64, notices: inout [Notice]) {
        switch action {
        case .start:
            state = .playing(anchorEngine: t, anchorPattern: startOffset)
            // Transients exactly at the start position play.
            lastPattern = startOffset - 1e-9
            startOffset = 0
            startedAt = t
        case .stop:
            if state != .idle { notices.append(.stopped(at: t)) }
            state = .idle
            lastPattern = nil
        case .pause:
            if case .playing = state, let p = patternTime(at: t) { state = .paused(atPattern: p) }
        case .resume:
            if case .paused(let p) = state { state = .playing(anchorEngine: t, anchorPattern: p) }
        case .seek(let pattern):
            reanchor(at: t, pattern: pattern)
        case .rate(let r):
            reanchor(at: t)
            rate = r
        case .mute(let m):
            isMuted = m
        case .loop(let enabled, let end):
            loopEnabled = enabled
            loopEnd = end
        case .cancel:
            // What was asked before the cancel goes; what was asked after it stays.
            actions.removeAll { $0.order < order }
            intensityControl.removeAll(before: order)
            sharpnessControl.removeAll(before: order)
            state = .idle
            lastPattern = nil
            startOffset = 0
        }
    }
}

@inline(__always) func clamp01(_ x: Double) -> Double { min(max(x, 0), 1) }
