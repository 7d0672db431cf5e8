/// The I2C side of a hosted firmware core: blocking transactions, as the core's hooks
/// (hooks.h) make them. The core holds its lock around every call, so an implementation
/// sees one call at a time, from the timer thread or the service thread.
public protocol HostedI2CPort: AnyObject, Sendable {
    /// START, address+W, `bytes` (register first), STOP. `sent` runs just before the
    /// transaction leaves the host (the timing record's moment).
    func write(address: UInt8, bytes: [UInt8], sent: () -> Void) -> HostedI2CResult
    /// START, address+W, register, repeated START, address+R, `count` bytes, STOP.
    func read(address: UInt8, register: UInt8, count: Int) -> (HostedI2CResult, [UInt8])
    /// The last words as the board goes away: the chip stopped and shut down (standby,
    /// EN low) as far as the adapter still can, and the adapter let go.
    func shutDown()
    /// One line for reports: what the bus is.
    var summary: String { get }
}

public enum HostedI2CResult: Sendable, Equatable {
    case acknowledged
    /// The chip did not acknowledge (the core latches an I2C fault and stops).
    case notAcknowledged
    /// The adapter itself failed (unplugged, a USB error): the board is gone.
    case adapterFailure(String)
}
