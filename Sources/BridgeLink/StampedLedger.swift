/// The stamped commands the link has sent and the board may still hold, with the
/// sequence number each went under, so a refusal (NAK) names the command it refused
/// and the link can send it again.
///
/// The board's queue takes stamps in order only (a stamp before the last queued is
/// OUT_OF_ORDER), so a refused command cannot simply be sent again behind later ones:
/// the link takes back everything from the refused stamp on (REPLACE_FROM) and sends
/// that run again, in order, once the board has room (`retry`).
public struct StampedLedger: Sendable {
    public struct Entry: Sendable, Equatable {
        public var sequence: UInt8
        public var command: StampedCommand
    }

    /// Sent, in stamp order, kept `retentionMicroseconds` past their stamps (a NAK
    /// comes back within a round trip).
    public private(set) var entries: [Entry] = []
    /// Taken back after a refusal, to send again before anything newer, in order.
    public private(set) var retry: [StampedCommand] = []
    /// The earliest stamp the board refused and the link has not yet taken back.
    public private(set) var refusedFrom: Int64?
    public var retentionMicroseconds: Int64 = 100_000

    public init() {}

    /// Commands sent whose stamps lie after `now`: the board's queue as the host counts it.
    public func inFlight(after now: Int64) -> Int {
        // Entries are in stamp order: count from the end.
        var n = 0
        for e in entries.reversed() {
            guard e.command.time > now else { break }
            n += 1
        }
        return n
    }

    /// The first stamp sent after `now` (the next command the board runs), if any.
    public func firstInFlight(after now: Int64) -> Int64? {
        var first: Int64?
        for e in entries.reversed() {
            guard e.command.time > now else { break }
            first = e.command.time
        }
        return first
    }

    /// The last stamp sent, if any.
    public var lastStamp: Int64? { entries.last?.command.time }

    /// True when something sent (and not taken back) is stamped at or after `time`.
    public func holds(from time: Int64) -> Bool { (entries.last?.command.time ?? .min) >= time }

    /// True when a command sent or waiting to be sent again is stamped within `range`.
    public func stamps(in range: ClosedRange<Int64>) -> Bool {
        if retry.contains(where: { range.contains($0.time) }) { return true }
        for e in entries.reversed() {
            if e.command.time < range.lowerBound { break }
            if e.command.time <= range.upperBound { return true }
        }
        return false
    }

    public mutating func record(sequence: UInt8, _ command: StampedCommand) {
        entries.append(Entry(sequence: sequence, command: command))
    }

    /// Forgets commands long due.
    public mutating func prune(now: Int64) {
        let cut = now - retentionMicroseconds
        guard let first = entries.first, first.command.time < cut else { return }
        entries.removeAll { $0.command.time < cut }
    }

    /// The board refused the frame sent under `sequence`: its command, if it is one of
    /// ours (and noted as the point to take back from).
    public mutating func refused(sequence: UInt8) -> StampedCommand? {
        // The newest entry with that sequence (sequence numbers wrap every 256 frames).
        guard let e = entries.last(where: { $0.sequence == sequence }) else { return nil }
        refusedFrom = min(refusedFrom ?? .max, e.command.time)
        return e.command
    }

    /// Takes back what was sent from `refusedFrom` on, to be sent again first: the
    /// stamp to send REPLACE_FROM for, or nil when nothing was refused.
    public mutating func takeBackRefused() -> Int64? {
        guard let from = refusedFrom else { return nil }
        refusedFrom = nil
        let back = entries.filter { $0.command.time >= from }.map(\.command)
        entries.removeAll { $0.command.time >= from }
        // What was already waiting to go again is later than anything still sent.
        retry = back + retry
        return from
    }

    /// The client takes back everything from `time` on (its own REPLACE_FROM): nothing
    /// of it is to be sent again.
    public mutating func takeBack(from time: Int64) {
        entries.removeAll { $0.command.time >= time }
        retry.removeAll { $0.time >= time }
        if let r = refusedFrom, r >= time { refusedFrom = nil }
    }

    /// The next `count` commands to send again, removed from `retry`.
    public mutating func takeRetry(_ count: Int) -> ArraySlice<StampedCommand> {
        let n = min(count, retry.count)
        defer { retry.removeFirst(n) }
        return retry.prefix(n)
    }

    /// STOP_ALL: the board holds nothing.
    public mutating func clear() {
        entries.removeAll()
        retry.removeAll()
        refusedFrom = nil
    }
}
