/// What became of the stamped commands the board took in this session, by the board's
/// own word: how many ran on the chip, how many a stop flushed from its queue, how many
/// a REPLACE_FROM took back.
///
/// The board's queue is first in, first out, and every QUEUE_STATUS carries how many
/// commands it has run since it booted and how many it holds. So with every command
/// the board accepted listed in the order it accepted them (`SentFrames` says which
/// those are), the first "run" of them ran; REPLACED(n) took the newest n it held; and
/// where it holds fewer than the list leaves queued, the difference was flushed by a
/// stop — the oldest first, since a flush empties the queue. The link sends a
/// QUEUE_STATUS request in the same transfer as every STOP_ALL, so what its own stops
/// flushed is told apart from what ran after them, command by command; a stop of the
/// board's own (EVENT_STOPPED) is counted exactly, though which commands it flushed is
/// inferred at the next report.
public struct Delivery: Sendable, Equatable {
    public enum Fate: Sendable, Equatable {
        /// In the board's queue, as far as the board has said.
        case queued
        /// The board ran it: the chip got it.
        case ran
        /// A stop emptied the queue before its turn.
        case flushed
        /// REPLACE_FROM took it back (a client's change, or the link's own to send a
        /// refused run again, when it goes again as a new command).
        case replaced
    }

    public struct Item: Sendable, Equatable {
        public var command: StampedCommand
        public var fate: Fate
    }

    /// Accepted commands with their fates, in the order accepted, when `keepsItems`.
    public private(set) var items: [Item] = []
    public let keepsItems: Bool
    /// Counts of every accepted command by fate (kept with or without `items`).
    public private(set) var queued = 0
    public private(set) var ran = 0
    public private(set) var flushed = 0
    public private(set) var replaced = 0
    /// The board's executed counter when the session's first QUEUE_STATUS came (the
    /// counter runs from the board's boot); nil until then.
    public private(set) var executedBaseline: UInt32?
    /// The board has reported since the session opened: `ran` is its count.
    public var isKnown: Bool { executedBaseline != nil }
    /// Items before this index are all settled (not queued): the search for the oldest
    /// queued starts here.
    private var firstQueued = 0

    public init(keepsItems: Bool = false) { self.keepsItems = keepsItems }

    public var accepted: Int { queued + ran + flushed + replaced }

    /// Commands that ran, in the order they ran (with `keepsItems`).
    public var ranCommands: [StampedCommand] { items.lazy.filter { $0.fate == .ran }.map(\.command) }

    /// The board took `command` into its queue.
    public mutating func accept(_ command: StampedCommand) {
        queued += 1
        if keepsItems { items.append(Item(command: command, fate: .queued)) }
    }

    /// REPLACED: the board dropped the newest `count` commands it held.
    public mutating func replace(newest count: Int) {
        let n = min(count, queued)
        queued -= n
        replaced += n
        guard keepsItems else { return }
        var left = n, i = items.count - 1
        while left > 0, i >= firstQueued {
            if items[i].fate == .queued {
                items[i].fate = .replaced
                left -= 1
            }
            i -= 1
        }
    }

    /// A QUEUE_STATUS: the board's executed counter and how many commands it holds.
    /// Commands accepted before the request it answers are all in the list by now.
    public mutating func report(executed: UInt32, holding: Int) {
        guard let baseline = executedBaseline else {
            // The session's first report: what ran before it belongs to earlier sessions.
            executedBaseline = executed &- UInt32(truncatingIfNeeded: ran)
            return
        }
        let total = Int(executed &- baseline)
        settleOldest(total - ran, as: .ran)
        if queued > holding { settleOldest(queued - max(0, holding), as: .flushed) }
    }

    /// Marks the oldest `count` queued commands.
    private mutating func settleOldest(_ count: Int, as fate: Fate) {
        let n = max(0, min(count, queued))
        guard n > 0 else { return }
        queued -= n
        if fate == .ran { ran += n } else { flushed += n }
        guard keepsItems else { return }
        var left = n
        while left > 0, firstQueued < items.count {
            if items[firstQueued].fate == .queued {
                items[firstQueued].fate = fate
                left -= 1
            }
            firstQueued += 1
        }
        while firstQueued < items.count, items[firstQueued].fate != .queued { firstQueued += 1 }
    }
}
