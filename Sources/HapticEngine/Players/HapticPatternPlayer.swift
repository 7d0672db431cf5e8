import Haptics

/// Core Haptics' pattern player: start and stop at a time, dynamic parameters and
/// parameter curves, cancel, mute. Times are on the engine clock (`currentTime`),
/// 0 = as soon as possible; a time already past also plays as soon as possible.
///
/// A handle: `Sendable`, it holds only its engine and its id; every call is a hop
/// onto the engine's executor. A player from before a board reset throws
/// `invalidPlayer` (Core Haptics: recreate players in the reset handler).
public final class HapticPatternPlayer: Sendable {
    public let engine: HapticEngine
    let id: Int

    init(engine: HapticEngine, id: Int) {
        self.engine = engine
        self.id = id
    }

    /// The engine drops the player's rendered pattern once it has nothing left to play.
    deinit {
        let engine = engine, id = id
        Task { await engine.releasePlayer(id) }
    }

    public func start(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerStart(id, at: time) }
    public func stop(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerStop(id, at: time) }
    /// Dynamic parameters from `time` on (each parameter's own `time` is relative to
    /// it). HapticIntensityControl multiplies, HapticSharpnessControl adds, over the
    /// pattern's own; the attack/decay/release controls and audio ones are accepted
    /// and have no effect here (the pattern's envelopes are rendered in advance).
    public func sendParameters(_ parameters: [DynamicParameter], atTime time: Double = 0) async throws(HapticEngineError) {
        try await engine.playerSendParameters(id, parameters, at: time)
    }
    /// A curve whose control points are relative to `time` plus the curve's own `time`.
    public func scheduleParameterCurve(_ curve: ParameterCurve, atTime time: Double = 0) async throws(HapticEngineError) {
        try await engine.playerScheduleCurve(id, curve, at: time)
    }
    /// Stops at once and drops everything scheduled (actions and parameters).
    public func cancel() async throws(HapticEngineError) { try await engine.playerCancel(id) }
    /// A muted player keeps its position and plays nothing.
    public func setMuted(_ muted: Bool) async throws(HapticEngineError) { try await engine.playerSetMuted(id, muted) }
}

/// Core Haptics' advanced player: everything a pattern player does, plus pause /
/// resume at a time, seek, looping with a loop end, playback rate and a completion
/// handler.
public final class HapticAdvancedPatternPlayer: Sendable {
    public let engine: HapticEngine
    let id: Int

    init(engine: HapticEngine, id: Int) {
        self.engine = engine
        self.id = id
    }

    /// The engine drops the player's rendered pattern once it has nothing left to play.
    deinit {
        let engine = engine, id = id
        Task { await engine.releasePlayer(id) }
    }

    public func start(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerStart(id, at: time) }
    public func stop(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerStop(id, at: time) }
    public func sendParameters(_ parameters: [DynamicParameter], atTime time: Double = 0) async throws(HapticEngineError) {
        try await engine.playerSendParameters(id, parameters, at: time)
    }
    public func scheduleParameterCurve(_ curve: ParameterCurve, atTime time: Double = 0) async throws(HapticEngineError) {
        try await engine.playerScheduleCurve(id, curve, at: time)
    }
    public func cancel() async throws(HapticEngineError) { try await engine.playerCancel(id) }
    public func setMuted(_ muted: Bool) async throws(HapticEngineError) { try await engine.playerSetMuted(id, muted) }

    /// Holds the position from `time`; `resume` continues from it.
    public func pause(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerPause(id, at: time) }
    public func resume(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerResume(id, at: time) }
    /// Moves to `offset` pattern seconds, playing or not (idle: where start begins).
    public func seek(toOffset offset: Double) async throws(HapticEngineError) { try await engine.playerSeek(id, toOffset: offset) }
    /// > 0; 2 plays twice as fast. Changes keep the current position.
    public func setPlaybackRate(_ rate: Double) async throws(HapticEngineError) { try await engine.playerSetRate(id, rate) }
    /// Loops from the start to `loopEnd` pattern seconds (0 = the pattern's end).
    public func setLoop(enabled: Bool, loopEnd: Double = 0) async throws(HapticEngineError) {
        try await engine.playerSetLoop(id, enabled: enabled, end: loopEnd)
    }
    /// Called on the engine's callback queue when the pattern has played to its end
    /// or was stopped or cancelled (nil), or cut short by an engine stop or reset
    /// (`engineStopped`).
    public func setCompletionHandler(_ handler: (@Sendable (HapticEngineError?) -> Void)?) async throws(HapticEngineError) {
        try await engine.playerSetCompletion(id, handler)
    }
}
