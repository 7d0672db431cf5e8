/// The I2C side of a hosted firmware core: transactions, as the core's hooks (hooks.h)
/// make them; reads blocking. The core holds its lock around every call, so an implementation
/// sees one call at a time, from the timer thread or the service thread.
public protocol HostedI2CPort: AnyObject, Sendable {
    /// START, address+W, `bytes` (register first), STOP. `sent` runs just before the
    /// transaction leaves the host (the timing record's moment). A port may return
    /// before the ACK bits are back and report a NACK at its next call instead.
    func write(address: UInt8, bytes: [UInt8], sent: () -> Void) -> HostedI2CResult
    /// START, address+W, register, repeated START, address+R, `count` bytes, STOP.
    func read(address: UInt8, register: UInt8, count: Int) -> (HostedI2CResult, [UInt8])
    /// The last words as the board goes away: the chip stopped and shut down (standby,
    /// EN low) as far as the adapter still can, and the adapter let go.
    func shutDown()
    /// The board's threads are starting: a port that takes its answers on a thread of its
    /// own starts it now, at `priority` (SCHED_FIFO, below the timer's; nil: the normal
    /// class). Until then every call waits for its answer.
    func start(priority: Int32?)
    /// One line for reports: what the bus is.
    var summary: String { get }
    /// The DRV2605's STATUS as the port last read it on its own, if within
    /// `maxAgeMicroseconds`, with every fault bit seen since the last call ORed in
    /// (hooks.h, `recent_status`): the core's fault poll then needs no transaction.
    func recentStatus(maxAgeMicroseconds: UInt32) -> UInt8?
    /// What to check when nothing acknowledges, where the adapter's wiring has mistakes
    /// of its own to name; nil for the general checks.
    var noAcknowledgeAdvice: String? { get }
}

extension HostedI2CPort {
    /// A port whose calls always wait for their answers has no thread to start.
    public func start(priority: Int32?) {}

    /// A port that takes no readings of its own: the core reads STATUS itself.
    public func recentStatus(maxAgeMicroseconds: UInt32) -> UInt8? { nil }

    /// What to check when nothing acknowledges (`FrameTransport.i2cNoAcknowledgeAdvice`):
    /// most ports have no wiring mistakes of their own to name.
    public var noAcknowledgeAdvice: String? { nil }
}

public enum HostedI2CResult: Sendable, Equatable {
    case acknowledged
    /// The chip did not acknowledge (the core latches an I2C fault and stops).
    case notAcknowledged
    /// The adapter itself failed (unplugged, a USB error): the board is gone.
    case adapterFailure(String)
}
