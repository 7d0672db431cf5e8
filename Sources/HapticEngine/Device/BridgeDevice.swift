/// The engine's one view of a bridge board, whatever carries the bytes: the
/// simulated board today, libusb and FT232H transports later.
///
/// It carries protocol frames (PROTOCOL.md) and owns the host's clock, because only
/// the device knows what "waiting" means for it: a USB transport sleeps and reads, a
/// simulated board in virtual time advances its simulation, never sleeping.
///
/// Not `Sendable`: the engine owns its device and calls it only from its own actor
/// (the `isolation` parameter keeps `wait` on that actor).
public protocol BridgeDevice: AnyObject {
    /// One line for reports ("simulated bridge board …").
    var summary: String { get }
    /// The host's monotonic clock, µs. Clock sync relates board time to this.
    var hostMicroseconds: UInt64 { get }
    /// Bytes to the board (one or more whole frames).
    func send(_ bytes: [UInt8]) throws(DeviceError)
    /// Frames from the board and link events since the last call, oldest first.
    func poll() -> [DeviceEvent]
    /// Lets host time reach `hostMicroseconds`, delivering what the link carries
    /// meanwhile. A real transport sleeps; a virtual one advances its simulation.
    func wait(untilHostMicroseconds: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError)
}

/// What a device reports besides frames.
public enum DeviceEvent: Sendable, Equatable {
    /// One whole frame as received (the engine decodes and checks it), with the host
    /// time it arrived: transports stamp frames on arrival (a USB transfer's
    /// completion), so clock sync does not depend on when the engine polls.
    case frame([UInt8], receivedAt: UInt64)
    /// The link is gone (unplugged, USB error). Sends fail until `reappeared`.
    case disconnected
    /// The board is back after a disconnect or a reset: a new session is needed.
    case reappeared
}

/// A device-level failure (never a protocol verdict: those come back as frames).
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    case disconnected
    case io(String)

    public var description: String {
        switch self {
        case .disconnected: "the device is disconnected"
        case .io(let what): "device I/O failed: \(what)"
        }
    }
}
