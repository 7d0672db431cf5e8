import BridgeProtocol

/// What the board has said about its queue (QUEUE_STATUS) and what it refused (NAK),
/// accumulated over a session. A value: the link owns one.
public struct BoardStatus: Sendable, Equatable {
    /// The newest QUEUE_STATUS.
    public private(set) var last: BoardFrame.QueueStatus?
    /// Commands the board ran more than 100 µs after their stamps, this session.
    public private(set) var underruns = 0
    /// The largest lag (start − stamp) the board reported for a command it ran, µs.
    public private(set) var lagHighWater: Int64 = 0
    /// Every NAK the board sent this session, by reason.
    public private(set) var refusals = RefusalTally()
    private var lastUnderrunCounter: UInt16?
    private var lastExecutedCount: UInt32?

    public init() {}

    /// A QUEUE_STATUS. Returns the lag of the command run last when it ran since the
    /// previous report (a first report may describe an earlier session's command).
    public mutating func take(_ q: BoardFrame.QueueStatus) -> Int64? {
        last = q
        if let before = lastUnderrunCounter { underruns += Int(q.underruns &- before) }
        lastUnderrunCounter = q.underruns
        defer { lastExecutedCount = q.commandsExecuted }
        guard let before = lastExecutedCount, q.commandsExecuted != before else { return nil }
        let lag = Int64(Int32(bitPattern: q.lastExecutedStart &- q.lastExecutedStamp))
        lagHighWater = max(lagHighWater, lag)
        return lag
    }

    public mutating func refused(_ reason: NakReason) { refusals.add(reason) }

    /// Forgets the report awaited (the next `last` is a fresh one).
    public mutating func awaitFreshReport() { last = nil }
}

/// NAKs counted by reason, in the order reasons were first seen.
public struct RefusalTally: Sendable, Equatable, CustomStringConvertible {
    public private(set) var counts: [(reason: NakReason, count: Int)] = []

    public init() {}

    public var total: Int { counts.reduce(0) { $0 + $1.count } }
    public subscript(reason: NakReason) -> Int { counts.first { $0.reason == reason }?.count ?? 0 }

    public mutating func add(_ reason: NakReason, count: Int = 1) {
        if let i = counts.firstIndex(where: { $0.reason == reason }) { counts[i].count += count } else { counts.append((reason, count)) }
    }

    /// "3 QUEUE_FULL, 1 SEQ_GAP", or "none".
    public var description: String {
        counts.isEmpty ? "none" : counts.map { "\($0.count) \($0.reason.name)" }.joined(separator: ", ")
    }

    public static func == (a: RefusalTally, b: RefusalTally) -> Bool {
        a.counts.count == b.counts.count && zip(a.counts, b.counts).allSatisfy { $0.reason == $1.reason && $0.count == $1.count }
    }
}
