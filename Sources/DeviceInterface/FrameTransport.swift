/// A link to a bridge board that carries protocol frames (Firmware/PROTOCOL.md),
/// whatever carries the bytes: USB through libusb, the simulated board in process,
/// the firmware ELF under simavr, the firmware core hosted beside an I2C adapter.
///
/// It owns the host's clock, because only the link knows what "waiting" means for
/// it: a USB transport sleeps while its event thread reads, a simulated board in
/// virtual time advances its simulation, never sleeping.
///
/// Not `Sendable`: one client (an engine, a bench session) owns a transport and calls
/// it from one isolation domain (the `isolation` parameter keeps `wait` there).
public protocol FrameTransport: AnyObject {
    /// One line for reports ("bridge board 1-2 (serial …)").
    var summary: String { get }
    /// The host's monotonic clock, µs. Clock sync relates board time to this.
    var hostMicroseconds: UInt64 { get }
    /// True when `hostMicroseconds` is wall-clock time that passes by itself (a client
    /// may sleep on its own clock instead of calling `wait`); false for virtual time,
    /// which moves only through `wait`.
    var isRealTime: Bool { get }
    /// Bytes to the board (one or more whole frames).
    func send(_ bytes: [UInt8]) throws(DeviceError)
    /// Frames from the board and link events since the last call, oldest first.
    func poll() -> [DeviceEvent]
    /// Lets host time reach `hostMicroseconds`, delivering what the link carries
    /// meanwhile. A real transport sleeps (or returns early when a frame arrives); a
    /// virtual one advances its simulation.
    func wait(untilHostMicroseconds: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError)
    /// Lets go of the link (a USB transport releases its interface and closes the
    /// device, so another program can open it). Sends fail afterwards. Idempotent.
    func close()
    /// Acceleration telemetry, when the device behind this link has a source of it
    /// (a simulated sled, an accelerometer on the bench); nil when it has none. A
    /// capability the transport states, never found by casting it.
    var telemetry: (any AccelerationTelemetry)? { get }
    /// The link's own diagnostics (bytes that were not frames), where it keeps them.
    var diagnostics: (any LinkDiagnostics)? { get }
    /// Why the link is gone, once `poll` has said it is (`.disconnected`), where the
    /// transport knows more than that (a hosted board: the adapter's error, or
    /// its guardian's word); nil otherwise.
    var lossReason: String? { get }
    /// What to check when nothing acknowledges an address on the board's I2C bus, where
    /// the adapter has wiring mistakes of its own to name (an FT232H's SDA on two pins);
    /// nil for the general checks `I2CError.addressNotAcknowledged` gives.
    var i2cNoAcknowledgeAdvice: String? { get }
}

extension FrameTransport {
    /// Most links have no source of acceleration.
    public var telemetry: (any AccelerationTelemetry)? { nil }
    /// Most links keep no diagnostics.
    public var diagnostics: (any LinkDiagnostics)? { nil }
    /// Most links can say no more than that they are gone.
    public var lossReason: String? { nil }
    /// Most links' wiring is checked as any I2C bus's is.
    public var i2cNoAcknowledgeAdvice: String? { nil }
}

/// What a transport reports besides sending.
public enum DeviceEvent: Sendable, Equatable {
    /// One whole frame as received (the client decodes and checks it), with the host
    /// time it arrived: transports stamp frames on arrival (a USB transfer's
    /// completion), so clock sync does not depend on when the client polls.
    case frame([UInt8], receivedAt: UInt64)
    /// The link is gone (unplugged, USB error). Sends fail until `reappeared`.
    case disconnected
    /// The board is back after a disconnect or a reset: a new session is needed.
    case reappeared
}
