/// The stamped commands the link has sent and the board may still hold, each with the
/// frame it went in (`SentFrames.Frame.index`) and what the board has said of it, so
/// a refusal names the command it refused and the link can send it again.
///
/// The board's queue takes stamps in order only (a stamp before the last queued is
/// OUT_OF_ORDER), so a refused command cannot simply be sent again behind later ones:
/// the link takes back everything from the refused stamp on (REPLACE_FROM) and sends
/// that run again, in order. Which of the run go again is settled when REPLACED says
/// how many the board dropped: the refused ones, and the newest of those it had
/// queued, that many; any it accepted and did not drop it has already run (a board
/// that fell behind runs overdue commands as they come) and must not run twice.
///
/// A command stays here until the board has run it (its QUEUE_STATUS names a later
/// stamp run): however long a stalled board takes to refuse one, or to drop it with a
/// REPLACE_FROM, it is still here to go again.
public struct StampedLedger: Sendable {
    public enum State: Sendable, Equatable {
        /// Sent; the board has not yet said.
        case unresolved
        /// Taken into the board's queue.
        case accepted
        /// Refused with a NAK, or lost on the way (SEQ_GAP).
        case refused
    }

    public struct Entry: Sendable, Equatable {
        /// The frame it was sent in (`SentFrames`).
        public var frame: Int
        public var command: StampedCommand
        public var state: State = .unresolved
        /// A change took it back while it awaited REPLACED: it never goes again.
        public var withdrawn = false
    }

    /// Sent, in stamp order (which is also the order sent).
    public private(set) var entries: [Entry] = []
    /// Taken back after a refusal (REPLACE_FROM sent), until REPLACED settles which go again.
    public private(set) var takenBack: [Entry] = []
    /// Settled to go again, before anything newer, in order.
    public private(set) var retry: [StampedCommand] = []
    /// The earliest stamp the board refused and the link has not yet taken back.
    public private(set) var refusedFrom: Int64?

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
        if retry.contains(where: { range.contains($0.time) }) || takenBack.contains(where: { range.contains($0.command.time) }) { return true }
        for e in entries.reversed() {
            if e.command.time < range.lowerBound { break }
            if e.command.time <= range.upperBound { return true }
        }
        return false
    }

    /// Refused commands not yet sent again (taken back, settled or not).
    public var hasRetries: Bool { refusedFrom != nil || !takenBack.isEmpty || !retry.isEmpty }

    public mutating func record(frame: Int, _ command: StampedCommand) {
        entries.append(Entry(frame: frame, command: command))
    }

    /// Where the entry sent in `frame` is, if it is still here (both lists are in frame order).
    private static func position(ofFrame frame: Int, in list: [Entry]) -> Int? {
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if list[mid].frame < frame { low = mid + 1 } else { high = mid }
        }
        return low < list.count && list[low].frame == frame ? low : nil
    }

    /// The board took in the command sent in `frame`.
    public mutating func accepted(frame: Int) {
        if let i = Self.position(ofFrame: frame, in: entries) {
            entries[i].state = .accepted
        } else if let i = Self.position(ofFrame: frame, in: takenBack) {
            takenBack[i].state = .accepted
        }
    }

    /// The board refused (or never got) the frame `frame`: its command, if it is still
    /// the link's to send (and the point to take back from moves to it); nil for one a
    /// change or a stop took back.
    public mutating func refused(frame: Int) -> StampedCommand? {
        if let i = Self.position(ofFrame: frame, in: entries) {
            entries[i].state = .refused
            refusedFrom = min(refusedFrom ?? .max, entries[i].command.time)
            return entries[i].command
        }
        if let i = Self.position(ofFrame: frame, in: takenBack) {
            takenBack[i].state = .refused
            return takenBack[i].command
        }
        return nil
    }

    /// The board has run a command stamped `lastRun` (QUEUE_STATUS, a raw 32-bit board
    /// stamp): its queue runs in stamp order, so every command it accepted stamped
    /// before that has run (or a stop flushed it) and is forgotten.
    public mutating func boardRan(through lastRun: UInt32) {
        // Entries are answered in the order sent: the accepted ones lead.
        var k = 0
        while k < entries.count, entries[k].state == .accepted {
            let t = entries[k].command.time
            // The stamp unwrapped near the entry's own time (the board's clock wraps).
            guard Int32(bitPattern: lastRun &- BoardClock.stamp(t)) > 0 else { break }
            k += 1
        }
        if k > 0 { entries.removeFirst(k) }
    }

    /// Takes back what was sent from `refusedFrom` on (the link sends REPLACE_FROM for
    /// the stamp returned); nil when nothing was refused, or while an earlier take-back
    /// awaits its REPLACED.
    public mutating func takeBackRefused() -> Int64? {
        guard let from = refusedFrom, takenBack.isEmpty else { return nil }
        refusedFrom = nil
        takenBack = entries.filter { $0.command.time >= from }
        entries.removeAll { $0.command.time >= from }
        return from
    }

    /// REPLACED for the link's own take-back: the board dropped the newest `discarded`
    /// commands it held. What goes again: every command it refused, and of those it
    /// had accepted the newest `discarded`; the rest of what it accepted it had run.
    public mutating func settleTakeBack(discarded: Int) {
        var dropped = max(0, discarded)
        var again: [StampedCommand] = []
        for e in takenBack.reversed() {
            switch e.state {
            case .refused, .unresolved: if !e.withdrawn { again.append(e.command) }
            case .accepted:
                if dropped > 0 {
                    if !e.withdrawn { again.append(e.command) }
                    dropped -= 1
                }
            }
        }
        takenBack = []
        // What was already waiting to go again is later than anything taken back now.
        retry = again.reversed() + retry
    }

    /// The client takes back everything from `time` on (its own REPLACE_FROM): nothing
    /// of it is to be sent again. Returns how many commands it took back.
    @discardableResult
    public mutating func takeBack(from time: Int64) -> Int {
        let before = entries.count + retry.count
        entries.removeAll { $0.command.time >= time }
        retry.removeAll { $0.time >= time }
        // Still counted when REPLACED settles the take-back, but none of these goes again.
        var withdrawn = 0
        for i in takenBack.indices where takenBack[i].command.time >= time && !takenBack[i].withdrawn {
            takenBack[i].withdrawn = true
            withdrawn += 1
        }
        if let r = refusedFrom, r >= time { refusedFrom = nil }
        return before - entries.count - retry.count + withdrawn
    }

    /// The next `count` commands to send again, removed from `retry`.
    public mutating func takeRetry(_ count: Int) -> ArraySlice<StampedCommand> {
        let n = min(count, retry.count)
        defer { retry.removeFirst(n) }
        return retry.prefix(n)
    }

    /// STOP_ALL: the board holds nothing, and nothing refused goes again.
    public mutating func clear() {
        entries.removeAll()
        takenBack.removeAll()
        retry.removeAll()
        refusedFrom = nil
    }
}
