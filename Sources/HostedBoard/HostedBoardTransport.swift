import DeviceInterface
#if canImport(Glibc)
import Glibc
#endif

/// A hosted board as a `FrameTransport`: `BridgeLink` and the engine talk to it as to a
/// bridge board over USB (HELLO, clock sync, the stamped stream), while the firmware
/// core runs in this process (`HostedBoard`). Board time is host time truncated to 32
/// bits, so clock sync finds no drift and an offset that is a whole number of 2^32 µs.
///
/// The link is gone when the adapter fails (unplugged) or the board halts (its guardian
/// gone or taking over): `poll` reports `.disconnected` once, with `lossReason`
/// (`board.failure`) saying why, and sends fail. `close` stops the core and shuts the chip
/// down (standby, EN low), the guardian told first that the player is closing and then
/// disarmed; so does dropping the transport.
public final class HostedBoardTransport: FrameTransport {
    public let board: HostedBoard
    public let summary: String
    /// Stops the chip if this process dies, stops or hangs (the adapter's own watchdog).
    public let guardian: (any HostedBoardGuard)?
    /// What the adapter is called in the words of a loss ("the <adapter> went away").
    public let adapterName: String
    /// Print the stamped writes' timing on standard error at close (the adapter's
    /// environment switch decides).
    public let reportsTiming: Bool
    private var reportedGone = false
    private var closed = false

    public init(
        board: HostedBoard, summary: String, adapterName: String, guardian: (any HostedBoardGuard)? = nil, reportsTiming: Bool = false
    ) {
        self.board = board
        self.summary = summary
        self.adapterName = adapterName
        self.guardian = guardian
        self.reportsTiming = reportsTiming
    }

    deinit { close() }

    public var hostMicroseconds: UInt64 { HostedClock.microseconds() }
    public var isRealTime: Bool { true }

    public func send(_ bytes: [UInt8]) throws(DeviceError) {
        guard !closed else { throw .disconnected }
        if let why = board.failure { throw .io("the \(adapterName) went away: \(why)") }
        board.receive(bytes)
    }

    public func poll() -> [DeviceEvent] {
        var events = board.takeFrames().map { DeviceEvent.frame($0.frame, receivedAt: $0.hostMicroseconds) }
        if board.failure != nil, !reportedGone {
            reportedGone = true
            events.append(.disconnected)
        }
        return events
    }

    public var lossReason: String? { board.failure }
    public var i2cNoAcknowledgeAdvice: String? { board.port.noAcknowledgeAdvice }

    public func wait(untilHostMicroseconds target: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        let now = hostMicroseconds
        if target > now {
            // Cancellation only cuts the wait short; the core runs on its own threads.
            try? await Task.sleep(for: .microseconds(Int64(clamping: target - now)))
        }
    }

    /// Stops the core's threads and shuts the chip down through the adapter. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        let times = board.drainWriteTimes()
        // Heartbeats end with the board's service thread: the guardian is told first.
        guardian?.closing()
        board.stop()
        guardian?.disarm()
        if reportsTiming, let line = Self.timingLine(times) {
            _ = ("hapbridge: " + line + "\n").withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
    }

    /// "N stamped writes, actual − stamp p50 … max … µs": the hosted timer's precision
    /// over `times` (printed at close when `reportsTiming`).
    public static func timingLine(_ times: [HostedWriteTime]) -> String? {
        let late = times.compactMap(\.lateNanoseconds).sorted()
        guard !late.isEmpty else { return nil }
        func p(_ q: Double) -> String {
            let v = late[min(late.count - 1, Int((Double(late.count) * q).rounded(.down)))]
            return "\((Double(v) / 100).rounded() / 10)"
        }
        let handOver = times.map { Double($0.answeredNanoseconds &- $0.sentNanoseconds) / 1000 }.sorted()
        return "\(late.count) stamped writes, actual − stamp (µs): min \(p(0)) p50 \(p(0.5)) p99 \(p(0.99)) max \(p(1)); "
            + "hand-over per write (µs): p50 \(Int(handOver[handOver.count / 2].rounded()))"
    }
}
