/// The board's clock as the host knows it: the SYNC exchanges in flight, the fit
/// through the fastest of each round (`ClockSync`), the 32-bit stamps unwrapped
/// (`BoardClock`), and the fastest round trip seen, half of which is the link's
/// one-way delay.
///
/// A value: the link owns one, and a test drives it with made-up exchanges.
public struct LinkClock: Sendable {
    public private(set) var sync = ClockSync()
    private var boardClock: BoardClock?
    /// Token → host time the SYNC left.
    private var inFlight: [UInt32: Int64] = [:]
    private var nextToken: UInt32 = 1
    /// The fastest SYNC round trip since the session opened, µs (0: none yet).
    public private(set) var minimumRoundTrip: Int64 = 0
    /// The slowest of the recent round trips (the last `recentWindow` exchanges):
    /// how late a frame sent now may arrive, for the untimed gap rule.
    public private(set) var recentMaximumRoundTrip: Int64 = 0
    private var recent: [Int64] = []
    /// For the same exchanges: board time the SYNC was decoded less host time it left,
    /// µs. Each is the clocks' offset plus that SYNC's trip to the board; the offset is
    /// the same in all of them (drift over a window is a few µs), so their spread is the
    /// spread of the trip out alone, without the way back.
    private var recentOutbound: [Int64] = []
    static let recentWindow = 16
    /// Host µs the next SYNC round starts (`exchangeDue`).
    public private(set) var nextRoundAt: Int64 = 0
    /// Exchanges of the current round still to send, one per call of `exchangeDue`.
    public private(set) var exchangesLeftInRound = 0

    public init() {}

    /// A new session: the board's clock as HELLO_REPLY gave it, nothing measured yet.
    public mutating func reset(anchor: UInt32) {
        self = LinkClock()
        boardClock = BoardClock(anchor: anchor)
    }

    /// Board time at a host time (µs, unwrapped); nil before the first exchange.
    public func board(atHost host: Int64) -> Int64? { sync.board(atHost: host) }
    /// Host time at a board time; nil before the first exchange.
    public func host(atBoard board: Int64) -> Int64? { sync.host(atBoard: board) }
    public var estimate: ClockSync.Estimate? { sync.estimate }
    /// Half the fastest round trip: how long a frame takes to reach the board at best.
    public var oneWayMicroseconds: Int64 { minimumRoundTrip / 2 }
    /// How much later than the fastest recent exchange a frame has lately reached the
    /// board, at most: the spread of the recent SYNCs' trips out (0 on a steady link).
    /// Measured one way, because the way back can be much the slower (an emulated
    /// board's IN endpoint is polled; a busy host reaps late) and says nothing about
    /// when a command arrives.
    public var deliverySpreadMicroseconds: Int64 {
        guard let lo = recentOutbound.min(), let hi = recentOutbound.max() else { return 0 }
        return hi - lo
    }

    /// Starts an exchange now: the token to put in the SYNC frame.
    public mutating func startExchange(hostNow: Int64) -> UInt32 {
        let token = nextToken
        nextToken &+= 1
        inFlight[token] = hostNow
        return token
    }

    /// True while a SYNC sent awaits its reply.
    public var hasExchangesInFlight: Bool { !inFlight.isEmpty }

    /// A SYNC_REPLY: adds the exchange. False for a token this session did not send.
    @discardableResult
    public mutating func received(token: UInt32, boardReceived raw: UInt32, hostReceived: Int64) -> Bool {
        guard let sent = inFlight.removeValue(forKey: token), var clock = boardClock else { return false }
        let e = ClockSync.Exchange(hostSent: sent, hostReceived: hostReceived, boardReceived: clock.unwrap(raw))
        boardClock = clock
        if minimumRoundTrip == 0 || e.roundTrip < minimumRoundTrip { minimumRoundTrip = e.roundTrip }
        recent.append(e.roundTrip)
        if recent.count > Self.recentWindow { recent.removeFirst(recent.count - Self.recentWindow) }
        recentMaximumRoundTrip = recent.max() ?? 0
        recentOutbound.append(e.boardReceived - sent)
        if recentOutbound.count > Self.recentWindow { recentOutbound.removeFirst(recentOutbound.count - Self.recentWindow) }
        sync.add(e)
        return true
    }

    /// Ends a round: its fastest exchange joins the fit.
    public mutating func closeRound() { sync.closeRound() }

    /// The periodic rounds: every `interval` a round of `exchanges` exchanges, one per
    /// call. True when an exchange should go out now.
    public mutating func exchangeDue(hostNow: Int64, interval: Int64, exchanges: Int) -> Bool {
        if hostNow >= nextRoundAt {
            sync.closeRound()
            nextRoundAt = hostNow + interval
            exchangesLeftInRound = max(1, exchanges)
        }
        guard exchangesLeftInRound > 0 else { return false }
        exchangesLeftInRound -= 1
        return true
    }
}
