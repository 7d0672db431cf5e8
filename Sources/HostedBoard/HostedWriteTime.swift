/// When one register write left the host, beside the stamp it was made for: what a
/// benchmark of host timing reads (`HostedBoard.drainWriteTimes()`).
public struct HostedWriteTime: Sendable, Equatable {
    /// The bytes after the address (register first).
    public var bytes: [UInt8]
    /// CLOCK_MONOTONIC ns just before the transfer was handed to the adapter's library.
    public var sentNanoseconds: UInt64
    /// CLOCK_MONOTONIC ns when the port's write call returned: its transfer taken (an
    /// port with an answer reader: the ACK bits come later), or its answer back.
    public var answeredNanoseconds: UInt64
    /// The stamp of the command it carries (CLOCK_MONOTONIC ns), for a write the timer
    /// made; nil for the main context's (bring-up, untimed access, stops).
    public var stampNanoseconds: UInt64?
    /// For a write the timer made: the time its thread was due to wake (the armed
    /// deadline), when it woke, and when it then held the core's lock (ns). What a late
    /// write is traced back to: a late wake-up, the lock held elsewhere, or the thread
    /// still busy with the write before.
    public var timer: TimerTrace?

    public struct TimerTrace: Sendable, Equatable {
        public var dueNanoseconds: UInt64
        public var wokeNanoseconds: UInt64
        public var lockedNanoseconds: UInt64
    }

    /// actual − stamp, ns (nil for an unstamped write).
    public var lateNanoseconds: Int64? {
        stampNanoseconds.map { Int64(bitPattern: sentNanoseconds &- $0) }
    }
}
