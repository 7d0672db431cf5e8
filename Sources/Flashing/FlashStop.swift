import Synchronization

/// A request to stop a flash at the next safe point (`hapbridge flash` on SIGINT,
/// SIGTERM or SIGHUP): the block in flight is finished — its answer awaited, so the
/// bootloader is never left mid-command — and nothing is started after it, an erase
/// least of all. The programmers look between blocks, the plan between phases, and
/// the waits for a board (its bootloader, its firmware coming back) every slice.
/// What the board was left holding is the `FlashError`'s `left`.
public final class FlashStop: Sendable {
    private let reason = Mutex<String?>(nil)

    public init() {}

    /// Asks the flash to stop; `why` ("SIGINT") is said in the error. The first one counts.
    public func request(_ why: String) {
        reason.withLock { if $0 == nil { $0 = why } }
    }

    /// Why the flash was asked to stop, if it was.
    public var requested: String? { reason.withLock { $0 } }

    /// Throws `.stopped` when a stop was asked for; `where` says where the flash stood
    /// ("before the erase"), for the message the plan builds from it.
    public func check(_ where: @autoclosure () -> String) throws(FlashError) {
        guard let why = requested else { return }
        throw FlashError(.stopped, "stopped by \(why) \(`where`())")
    }
}
