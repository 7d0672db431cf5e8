import DeviceInterface
import RealTime

/// A pass-through `FrameTransport` that notes when each transfer was handed to the
/// transport beneath (host µs, CLOCK_MONOTONIC) with its bytes: where the engine's part
/// of a start ends and the link's delivery (libusb, the kernel or its emulation) begins.
/// Recording is an append; the frames are decoded after the run, off the measured path.
final class SendTimes: FrameTransport {
    let inner: any FrameTransport
    private(set) var sends: [(hostMicroseconds: UInt64, bytes: [UInt8])] = []

    init(_ inner: any FrameTransport) {
        self.inner = inner
        sends.reserveCapacity(1 << 16)
    }

    var summary: String { inner.summary }
    var hostMicroseconds: UInt64 { inner.hostMicroseconds }
    var isRealTime: Bool { inner.isRealTime }
    func close() { inner.close() }
    func poll() -> [DeviceEvent] { inner.poll() }

    func send(_ bytes: [UInt8]) throws(DeviceError) {
        sends.append((RealTimeExecutor.monotonicMicroseconds(), bytes))
        try inner.send(bytes)
    }

    func wait(untilHostMicroseconds t: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        try await inner.wait(untilHostMicroseconds: t, isolation: isolation)
    }
}
