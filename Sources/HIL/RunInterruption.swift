import Synchronization

/// A stop asked of a run from outside it: `hapbridge run`'s first SIGINT, SIGTERM or
/// SIGHUP. The step under way is told at once (a play's engine stopped with STOP_ALL,
/// a bench procedure's waits cut within `BridgeLink.interruptionCheckMicroseconds`,
/// a `wait` or a wait for a device ended), and the runner starts nothing more: the test
/// under way ends as ERROR with the reason, the tests after it are not run, and the
/// record says the run was interrupted. A `flash` step is not cut mid-write: it ends
/// on its own, and the run stops after it.
public final class RunInterruption: Sendable {
    private struct State {
        var reason: String?
        var nextToken = 0
        var reactions: [Int: @Sendable (String) -> Void] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Why the run was interrupted ("interrupted by SIGINT"), once it was.
    public var reason: String? { state.withLock { $0.reason } }

    /// Interrupts the run (the first call; later ones do nothing): every reaction
    /// registered now runs, on the caller's thread.
    public func interrupt(reason: String) {
        let reactions: [@Sendable (String) -> Void]? = state.withLock { s in
            guard s.reason == nil else { return nil }
            s.reason = reason
            defer { s.reactions = [:] }
            return Array(s.reactions.values)
        }
        for reaction in reactions ?? [] { reaction(reason) }
    }

    /// Runs `body` with `reaction` registered for an interruption that comes while it
    /// runs (run at once, before `body`, if the run was already interrupted).
    func whileRunning<T, Failure: Error>(
        onInterrupt reaction: @escaping @Sendable (String) -> Void, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let token: Int? = state.withLock { s in
            guard s.reason == nil else { return nil }
            defer { s.nextToken += 1 }
            s.reactions[s.nextToken] = reaction
            return s.nextToken
        }
        if token == nil, let reason { reaction(reason) }
        defer { if let token { _ = state.withLock { $0.reactions.removeValue(forKey: token) } } }
        return try await body()
    }

    /// Waits `seconds`, or less if the run is interrupted (checked every
    /// `checkSeconds`): a `wait` step, a wait for a device.
    func sleep(seconds: Double) async {
        let end = ContinuousClock.now + TimeLimits.duration(seconds)
        while reason == nil, !Task.isCancelled {
            let left = end - ContinuousClock.now
            guard left > .zero else { return }
            try? await Task.sleep(for: min(left, Self.check))
        }
    }

    /// How often `sleep` looks for an interruption.
    static let check = Duration.milliseconds(20)
}
