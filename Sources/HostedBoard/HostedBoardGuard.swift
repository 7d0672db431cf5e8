/// What watches a hosted board from outside its process (an adapter's own watchdog, a
/// guardian process in the adapter's module): told on every
/// pass of the board's service thread — the core's main context, which runs its own
/// host-silence watchdog — that the board is alive, and able to say it must halt (its
/// watcher is gone or cannot act: a board nobody outside watches must not drive).
public protocol HostedBoardGuard: AnyObject, Sendable {
    /// Each service pass (every millisecond or so). A reason ends the board: the chip is
    /// stopped at once and the board reports itself gone with that reason. Asked until it
    /// has given one.
    func servicePass(nowNanoseconds: UInt64) -> String?
    /// The transport is stopping the chip itself: heartbeats end now (called before the
    /// board's threads stop).
    func closing()
    /// The chip is stopped and the board's threads have ended: the watcher may leave.
    func disarm()
}
