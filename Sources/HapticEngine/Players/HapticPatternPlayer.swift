import Haptics

/// What every player handle does (Core Haptics' CHHapticPatternPlayer): start and
/// stop at a time, dynamic parameters and parameter curves, cancel, mute. Times are
/// on the engine clock (`currentTime`), 0 = as soon as possible; a time already
/// past also plays as soon as possible. Both handle types get these from the one
/// extension below, so the two cannot drift apart.
public protocol HapticPlayer: Sendable {
    var engine: HapticEngine { get }
    /// The engine's id for this player.
    var playerID: Int { get }
}

extension HapticPlayer {
    public func start(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerStart(playerID, at: time) }
    public func stop(atTime time: Double = 0) async throws(HapticEngineError) { try await engine.playerStop(playerID, at: time) }
    /// Dynamic parameters from `time` on (each parameter's own `time` is relative to
    /// it). HapticIntensityControl multiplies, HapticSharpnessControl adds, over the
    /// pattern's own; the attack/decay/release controls and audio ones are accepted
    /// and have no effect here (the pattern's envelopes are rendered in advance).
    public func sendParameters(_ parameters: [DynamicParameter], atTime time: Double = 0) async throws(HapticEngineError) {
        try await engine.playerSendParameters(playerID, parameters, at: time)
    }
    /// A curve whose control points are relative to `time` plus the curve's own `time`.
    public func scheduleParameterCurve(_ curve: ParameterCurve, atTime time: Double = 0) async throws(HapticEngineError) {
        try await engine.playerScheduleCurve(playerID, curve, at: time)
    }
    /// Stops at once and drops everything scheduled (actions and parameters).
    public func cancel() async throws(HapticEngineError) { try await engine.playerCancel(playerID) }
    /// A muted player keeps its position and plays nothing.
    public func setMuted(_ muted: Bool) async throws(HapticEngineError) { try await engine.playerSetMuted(playerID, muted) }
}

/// Core Haptics' pattern player.
///
/// A handle: `Sendable`, it holds only its engine and its id; every call is a hop
/// onto the engine's executor. A player from before a board reset throws
/// `invalidPlayer` (Core Haptics: recreate players in the reset handler).
public final class HapticPatternPlayer: HapticPlayer {
    public let engine: HapticEngine
    public let playerID: Int

    init(engine: HapticEngine, id: Int) {
        self.engine = engine
        playerID = id
    }

    /// The engine drops the player's rendered pattern once it has nothing left to play.
    deinit {
        let engine = engine, id = playerID
        Task { await engine.releasePlayer(id) }
    }
}

/// Core Haptics' advanced player: everything a pattern player does, plus pause /
/// resume at a time, seek, looping with a loop end, playback rate and a completion
/// handler.
public final class HapticAdvancedPatternPlayer: HapticPlayer {
    public let engine: HapticEngine
    public let playerID: Int
    private var id: Int { playerID }

    init(engine: HapticEngine, id: Int) {
        self.engine = engine
        playerID = id
    }

    /// The engine drops the player's rendered pattern once it has nothing left to play.
    deinit {
        let engine = engine, id = playerID
        Task { await engine.releasePlayer(id) }
    }

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
