import Haptics

/// The engine's players as a value: each one's playback, the session it belongs to,
/// its completion handler, the ends the board has not reached yet, and the players a
/// client let go of. The engine holds one; the rules of who hears what live here.
struct PlayerTable: Sendable {
    typealias Completion = @Sendable (HapticEngineError?) -> Void

    /// Every player's playback, by id (the scheduler steps them in id order).
    var players: [Int: PlayerPlayback] = [:]
    /// Players that ended, at the engine time they did (delivered once it has passed).
    private(set) var finishedNotices: [FinishedNotice] = []
    /// The engine's session: a reset (the board went away or came back) ends it, and
    /// with it every player made in it.
    private(set) var session = 0
    private var sessions: [Int: Int] = [:]
    private var completions: [Int: Completion] = [:]
    private var nextID = 1
    /// Players whose handles are gone, dropped once silent.
    private(set) var released: Set<Int> = []

    var count: Int { players.count }
    var anyActive: Bool { players.values.contains { $0.isActive } }
    var hasNotices: Bool { !finishedNotices.isEmpty }
    /// When the earliest end not yet reached comes (engine µs).
    var nextNoticeAt: Int64? { finishedNotices.map(\.at).min() }

    /// A new player in this session; its id.
    mutating func register(advanced: Bool, timeline: Timeline) -> Int {
        let id = nextID
        nextID += 1
        players[id] = PlayerPlayback(id: id, advanced: advanced, timeline: timeline)
        sessions[id] = session
        return id
    }

    /// The player's playback, if it belongs to this session.
    func playback(_ id: Int) -> PlayerPlayback? {
        guard sessions[id] == session else { return nil }
        return players[id]
    }

    /// True when a player other than `id` is sounding or scheduled.
    func othersActive(than id: Int) -> Bool { players.contains { $0.key != id && $0.value.isActive } }

    mutating func setCompletion(_ id: Int, _ handler: Completion?) { completions[id] = handler }

    /// `id` ended at engine time `at`; `fromStep` when a compiled step said so.
    mutating func noteFinished(_ id: Int, at: Int64, fromStep: Bool) {
        finishedNotices.append(FinishedNotice(at: at, id: id, fromStep: fromStep))
    }

    /// A rewind to `time` takes back the ends compiled after it (the regenerated steps
    /// say them again).
    mutating func dropCompiledNotices(after time: Int64) { finishedNotices.removeAll { $0.fromStep && $0.at > time } }

    /// The ends the board has reached by `now`, taken: the completion handlers to call
    /// (nil for none), in the order the players ended. Released players gone silent
    /// are dropped.
    mutating func takeDue(now: Int64) -> [Completion] {
        let due = finishedNotices.filter { $0.at <= now }
        if !due.isEmpty { finishedNotices.removeAll { $0.at <= now } }
        let handlers = due.compactMap { completions[$0.id] }
        dropReleasedSilent()
        return handlers
    }

    /// Every player stops. The handlers of those that were still playing (or paused,
    /// or scheduled), or whose end was compiled but not yet reached, are returned to
    /// hear the stop; those that had finished heard already.
    mutating func endAll() -> [Completion] {
        let finishing = Set(finishedNotices.map(\.id))
        finishedNotices.removeAll()
        var handlers: [Completion] = []
        for id in players.keys.sorted() {
            let wasActive = players[id]?.isActive ?? false
            players[id]?.cancelAll()
            if let c = completions[id], wasActive || finishing.contains(id) { handlers.append(c) }
        }
        return handlers
    }

    /// The session is gone (a reset): its players are invalid from now on.
    mutating func newSession() {
        session += 1
        players.removeAll()
        completions.removeAll()
    }

    /// The client let go of `id`: forgotten now if silent, else once it is.
    mutating func release(_ id: Int) {
        released.insert(id)
        dropReleasedSilent()
    }

    private mutating func dropReleasedSilent() {
        guard !released.isEmpty else { return }
        for id in released where !(players[id]?.isActive ?? false) && !finishedNotices.contains(where: { $0.id == id }) {
            players.removeValue(forKey: id)
            sessions.removeValue(forKey: id)
            completions.removeValue(forKey: id)
            released.remove(id)
        }
    }
}

/// A player that ended at `at`; `fromStep` when a compiled step said so (a rewind
/// takes those back and the regenerated steps say it again).
struct FinishedNotice: Sendable {
    var at: Int64
    var id: Int
    var fromStep: Bool
}
