import HapticCompilation
import Haptics

/// The engine side of the players: every operation lands here, on the engine's
/// executor, and becomes an action or a parameter entry at an engine time.
extension HapticEngine {
    /// A player for `pattern` (Core Haptics' `makePlayer(with:)`).
    public func makePlayer(with pattern: HapticPattern) throws(HapticEngineError) -> HapticPatternPlayer {
        HapticPatternPlayer(engine: self, id: try register(pattern, advanced: false))
    }

    /// An advanced player: adds pause, resume, seek, loop, rate and completion.
    public func makeAdvancedPlayer(with pattern: HapticPattern) throws(HapticEngineError) -> HapticAdvancedPatternPlayer {
        HapticAdvancedPatternPlayer(engine: self, id: try register(pattern, advanced: true))
    }

    func register(_ pattern: HapticPattern, advanced: Bool) throws(HapticEngineError) -> Int {
        let timeline: Timeline
        do { timeline = try Renderer.render(pattern, options: RenderOptions(
            sampleRate: 1e6 / Double(options.controlStepMicroseconds), sharpnessControl: options.sharpnessControl)) } catch {
            throw .patternRender(error)
        }
        // Refused here, before anything plays, rather than mid-stream: more transients
        // in one control step than the chip's bus can start, or more players than a
        // step mixes (every registered player is stepped at every step).
        do {
            try DriveCompiler.checkWork(for: timeline, stepMicroseconds: options.controlStepMicroseconds)
            try CompilationLimits.standard.check(contributions: table.count + 1)
        } catch { throw .compilation(error) }
        return table.register(advanced: advanced, timeline: timeline)
    }

    /// The player, if it belongs to this session and the engine can play.
    func player(_ id: Int, requireRunning: Bool = true) throws(HapticEngineError) -> PlayerPlayback {
        guard let p = table.playback(id) else { throw .invalidPlayer }
        if requireRunning {
            switch state {
            case .stopped: throw .engineNotRunning
            case .standby: wake()  // auto-shutdown: wake on demand
            case .running: break
            }
        }
        return p
    }

    /// Engine µs for a client time: 0 = now; a past time plays as soon as possible.
    /// On a board that can replace what is queued (protocol 1.1) "as soon as possible"
    /// is now + lead, however far ahead the stream is; otherwise it is the first step
    /// not yet compiled (what is sent stays), at most one look-ahead window away.
    ///
    /// With `Options.immediateStart` `.keepingPatternTiming`, a start (`deliverable`) as
    /// soon as possible is anchored later still, where its first command can reach the
    /// board however slow the link's delivery has lately been, where that is more than
    /// the board tolerates (`BridgeLink.startAnchorMicroseconds`).
    func engineTime(_ seconds: Double, deliverable: Bool = false) throws(HapticEngineError) -> Int64 {
        let requested = try Self.microseconds(seconds)
        let now = boardNow() ?? 0
        let anchored = deliverable && options.immediateStart == .keepingPatternTiming
        let lead = lead() + (anchored ? link.startAnchorMicroseconds : 0)
        let earliest = scheduler.canReplace ? now + lead : max(now + lead, scheduler.generatedUntil + 1)
        return seconds == 0 ? earliest : max(earliest, requested)
    }

    /// Client seconds as µs: finite, not negative, and at most a year (so the
    /// conversion can never trap, whatever a caller passes).
    static func microseconds(_ seconds: Double) throws(HapticEngineError) -> Int64 {
        guard seconds.isFinite, seconds >= 0, seconds <= 31_536_000 else { throw .invalidTime(seconds) }
        return Int64((seconds * 1e6).rounded())
    }

    static func checkValue(_ value: Double, of id: DynamicParameterID) throws(HapticEngineError) {
        guard value.isFinite else { throw .invalidParameter("\(id.rawValue) = \(value): values must be finite numbers") }
    }

    /// Every player operation lands here: it takes effect at engine time `t` (from
    /// `seconds`), as an action or a parameter entry at that time. When the stream is
    /// already compiled past `t` (protocol 1.1 boards stream far ahead), the mix goes
    /// back to the last step before `t` first (`rewind`), so the change lands at `t`.
    func update(
        _ id: Int, requireRunning: Bool = true, _ body: @escaping @Sendable (inout PlayerPlayback, Int64) -> Void,
        at seconds: Double = 0, deliverable: Bool = false
    ) throws(HapticEngineError) {
        _ = try player(id, requireRunning: requireRunning)
        let t = try engineTime(seconds, deliverable: deliverable)
        // Idle, the frontier follows the clock (as a service pass now would bring it):
        // the loop may have slept a status interval, and the silent steps since then
        // must not be compiled between this call and its frame leaving.
        if state == .running, !anyPlayerActive, compiler?.isSettled ?? true, let now = boardNow() {
            scheduler.generatedUntil = max(scheduler.generatedUntil, now)
        }
        try rewind(before: t)
        guard var p = players[id] else { throw .invalidPlayer }
        body(&p, t)
        players[id] = p
        logOperation(on: id) { body(&$0, t) }
        // Act now rather than at the next service pass: this is the start latency.
        // The action's own step goes out first, alone, so compiling the rest of the
        // window is not between its stamp and its frame leaving. Then only the short
        // window follows (what the next service pass could not send in time): the deep
        // part is the service loop's, off the caller's path.
        if state == .running, let now = boardNow() {
            let window = horizon(now: now)
            generate(upTo: min(t, window))
            try sendPending(now: now)
            generate(upTo: min(window, max(t, now) + options.lookAheadMicroseconds))
            try sendPending(now: now)
        }
        wakeServiceLoop()
    }

    func playerStart(_ id: Int, at seconds: Double) throws(HapticEngineError) {
        try update(id, { p, t in p.schedule(.start, at: t) }, at: seconds, deliverable: true)
    }

    func playerStop(_ id: Int, at seconds: Double) throws(HapticEngineError) {
        try update(id, { p, t in p.schedule(.stop, at: t) }, at: seconds)
        if seconds == 0 { stopNowIfAlone(id) }
    }

    /// An immediate stop of the only sounding player flushes the board at once.
    func stopNowIfAlone(_ id: Int) {
        guard var p = players[id], !table.othersActive(than: id) else { return }
        let wasPlaying = p.state != .idle
        p.cancelAll()
        players[id] = p
        if wasPlaying, let now = boardNow() { table.noteFinished(id, at: now, fromStep: false) }
        flushIfSilent()
    }

    /// Drops what the player had scheduled. Alone, it also flushes the board at once;
    /// beside other players, it is an action at now + lead, like a stop.
    func playerCancel(_ id: Int) throws(HapticEngineError) {
        let p = try player(id, requireRunning: false)
        if table.othersActive(than: id) && state == .running {
            try update(id, requireRunning: false, { p, t in p.schedule(.cancel, at: t) })
            return
        }
        var q = p
        let wasPlaying = q.state != .idle
        q.cancelAll()
        players[id] = q
        if wasPlaying, let now = boardNow() { table.noteFinished(id, at: now, fromStep: false) }
        if state == .running { flushIfSilent() }
    }

    func playerSendParameters(_ id: Int, _ parameters: [DynamicParameter], at seconds: Double) throws(HapticEngineError) {
        for d in parameters {
            try Self.checkValue(d.value, of: d.id)
            _ = try Self.microseconds(d.time)
        }
        try update(id, { p, t in
            for d in parameters {
                let when = t + Int64((d.time * 1e6).rounded())
                switch d.id {
                case .hapticIntensityControl: p.setIntensityControl(clamp01(d.value), at: when)
                case .hapticSharpnessControl: p.setSharpnessControl(min(1, max(-1, d.value)), at: when)
                default: break  // attack/decay/release shape events when rendered; audio is not played
                }
            }
        }, at: seconds)
    }

    func playerScheduleCurve(_ id: Int, _ curve: ParameterCurve, at seconds: Double) throws(HapticEngineError) {
        _ = try Self.microseconds(curve.time)
        for point in curve.controlPoints {
            try Self.checkValue(point.value, of: curve.id)
            _ = try Self.microseconds(point.time)
        }
        try update(id, { p, t in
            let start = t + Int64((curve.time * 1e6).rounded())
            let points = curve.controlPoints.map { (Int64(($0.time * 1e6).rounded()), $0.value) }
            switch curve.id {
            case .hapticIntensityControl: p.intensityCurve(points.map { ($0.0, clamp01($0.1)) }, at: start)
            case .hapticSharpnessControl: p.sharpnessCurve(points.map { ($0.0, min(1, max(-1, $0.1))) }, at: start)
            default: break
            }
        }, at: seconds)
    }

    func playerSetMuted(_ id: Int, _ muted: Bool) throws(HapticEngineError) {
        try update(id, requireRunning: false, { p, t in p.schedule(.mute(muted), at: t) })
    }

    func playerPause(_ id: Int, at seconds: Double) throws(HapticEngineError) {
        try update(id, { p, t in p.schedule(.pause, at: t) }, at: seconds)
    }

    func playerResume(_ id: Int, at seconds: Double) throws(HapticEngineError) {
        try update(id, { p, t in p.schedule(.resume, at: t) }, at: seconds)
    }

    /// Core Haptics' seek has no time: it takes effect as soon as it can (now + lead on
    /// a 1.1 board, else the first step not yet compiled).
    func playerSeek(_ id: Int, toOffset offset: Double) throws(HapticEngineError) {
        _ = try Self.microseconds(offset)
        try update(id, requireRunning: false, { p, t in p.schedule(.seek(toPattern: offset * 1e6), at: t) })
    }

    func playerSetRate(_ id: Int, _ rate: Double) throws(HapticEngineError) {
        guard rate.isFinite, rate >= 0.01, rate <= 100 else { throw .invalidPlaybackRate(rate) }
        let p = try player(id, requireRunning: false)
        try checkWork(p, rate: rate, loopLength: p.loopLength)
        try update(id, requireRunning: false, { p, t in p.schedule(.rate(rate), at: t) })
    }

    func playerSetLoop(_ id: Int, enabled: Bool, end: Double) throws(HapticEngineError) {
        _ = try Self.microseconds(end)
        var looped = try player(id, requireRunning: false)
        looped.loopEnabled = enabled
        looped.loopEnd = end
        try checkWork(looped, rate: looped.rate, loopLength: looped.loopLength)
        try update(id, requireRunning: false, { p, t in p.schedule(.loop(enabled: enabled, end: end), at: t) })
    }

    /// A faster rate or a short loop packs more transients into a step: the same bound
    /// as when the player was made.
    func checkWork(_ p: PlayerPlayback, rate: Double, loopLength: Double?) throws(HapticEngineError) {
        do {
            try DriveCompiler.checkWork(
                for: p.timeline, stepMicroseconds: options.controlStepMicroseconds, playbackRate: rate, loopLength: loopLength.map { $0 / 1e6 })
        } catch { throw .compilation(error) }
    }

    /// The client let go of a player: forget it now if it is silent, else once it is.
    func releasePlayer(_ id: Int) { table.release(id) }

    func playerSetCompletion(_ id: Int, _ handler: (@Sendable (HapticEngineError?) -> Void)?) throws(HapticEngineError) {
        _ = try player(id, requireRunning: false)
        table.setCompletion(id, handler)
    }
}
