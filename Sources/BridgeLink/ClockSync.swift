/// Host ↔ board clock model from SYNC exchanges (PROTOCOL.md "Clock sync"):
/// `board = host + offset + drift × (host − reference)`.
///
/// Each exchange gives the board's clock at decode (`rx`) between the host's send
/// `t0` and receive `t1`, so `rx − (t0 + t1) / 2` is the offset to ±(t1 − t0) / 2.
/// The engine syncs in rounds of a few exchanges and keeps the one with the smallest
/// round trip per round (queueing only ever adds delay); the offset and drift are a
/// least-squares line through the last `window` round winners. The error estimate is
/// the winners' half round trip plus the line's RMS residual: an honest bound on
/// the link's asymmetry, not a guess at it.
public struct ClockSync: Sendable {
    public struct Exchange: Sendable, Equatable {
        public var hostSent: Int64
        public var hostReceived: Int64
        /// Board time at decode, unwrapped to 64 bits.
        public var boardReceived: Int64
        public var roundTrip: Int64 { hostReceived - hostSent }
        public var hostMidpoint: Double { Double(hostSent + hostReceived) / 2 }
        public var offset: Double { Double(boardReceived) - hostMidpoint }
    }

    /// What the model currently says.
    public struct Estimate: Sendable, Equatable {
        /// board − host at `referenceHost`, µs.
        public var offset: Double
        /// d(board)/d(host) − 1, e.g. 50e-6 for a board running 50 ppm fast.
        public var drift: Double
        public var referenceHost: Double
        /// ± µs: half the best round trip plus the fit's RMS residual.
        public var errorMicroseconds: Double
        public var exchanges: Int
    }

    public var window = 8
    private var winners: [Exchange] = []
    private var round: [Exchange] = []
    public private(set) var estimate: Estimate?

    public init() {}

    /// Adds one exchange to the current round.
    public mutating func add(_ e: Exchange) {
        round.append(e)
        if estimate == nil { closeRound() }  // the first answer is usable at once
    }

    /// Ends a round: its fastest exchange joins the fit.
    public mutating func closeRound() {
        guard let best = round.min(by: { $0.roundTrip < $1.roundTrip }) else { return }
        round.removeAll()
        if let last = winners.last, last == best { return }
        winners.append(best)
        if winners.count > window { winners.removeFirst(winners.count - window) }
        fit()
    }

    /// Drops everything (a new board session: its clock restarted).
    public mutating func reset() {
        winners.removeAll()
        round.removeAll()
        estimate = nil
    }

    private mutating func fit() {
        let n = Double(winners.count)
        let xs = winners.map(\.hostMidpoint), ys = winners.map(\.offset)
        let mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0
        for (x, y) in zip(xs, ys) {
            sxx += (x - mx) * (x - mx)
            sxy += (x - mx) * (y - my)
        }
        // Drift needs a spread of at least 100 ms to mean anything.
        let drift = sxx > 0 && (xs.max()! - xs.min()!) >= 100_000 ? sxy / sxx : 0
        var residual = 0.0
        for (x, y) in zip(xs, ys) {
            let r = y - (my + drift * (x - mx))
            residual += r * r
        }
        let halfTrip = Double(winners.map(\.roundTrip).min() ?? 0) / 2
        estimate = Estimate(
            offset: my, drift: drift, referenceHost: mx,
            errorMicroseconds: halfTrip + (residual / n).squareRoot(), exchanges: winners.count)
    }

    /// Board µs (unwrapped) at a host time.
    public func board(atHost host: Int64) -> Int64? {
        guard let e = estimate else { return nil }
        let h = Double(host)
        return Int64((h + e.offset + e.drift * (h - e.referenceHost)).rounded())
    }

    /// Host µs at a board time (unwrapped).
    public func host(atBoard board: Int64) -> Int64? {
        guard let e = estimate else { return nil }
        // board = h (1 + d) + offset − d·ref  →  h = (board − offset + d·ref) / (1 + d)
        let h = (Double(board) - e.offset + e.drift * e.referenceHost) / (1 + e.drift)
        return Int64(h.rounded())
    }
}
