import DeviceInterface
import BridgeProtocol
import HapticEngine

/// A pass-through `FrameTransport` that notes the stamp and value of every CMD_RTP the
/// engine sends, so each RTP_INPUT write at the chip can be matched to the time it
/// was meant for. It sits between the engine and the real transport and changes
/// nothing the transport sees.
final class StampRecorder<Inner: FrameTransport>: FrameTransport {
    let inner: Inner
    private(set) var sent: [(stamp: UInt32, amplitude: UInt8)] = []

    init(_ inner: Inner) { self.inner = inner }

    var summary: String { inner.summary }
    var hostMicroseconds: UInt64 { inner.hostMicroseconds }
    var isRealTime: Bool { inner.isRealTime }
    func close() { inner.close() }

    func send(_ bytes: [UInt8]) throws(DeviceError) {
        if let frames = try? HostFrame.decodeAll(bytes) {
            for f in frames { if let s = f.stamp, let a = f.rtpAmplitude { sent.append((s, a)) } }
        }
        try inner.send(bytes)
    }

    func poll() -> [DeviceEvent] { inner.poll() }

    func wait(untilHostMicroseconds t: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        try await inner.wait(untilHostMicroseconds: t, isolation: isolation)
    }

    /// |write − stamp| for every sent RTP command stamped at or after `firstStamp`
    /// (see the free `timingErrors`).
    func timingErrors(writes: [(time: Double, value: UInt8)], from firstStamp: UInt32 = 0, earlyTolerance: Double = 20)
        -> (errors: [Double], unmatched: Int)
    {
        let stamps = sent.filter { $0.stamp >= firstStamp }.map { (time: Double($0.stamp), amplitude: $0.amplitude) }
        return EngineBenchmarks.timingErrors(stamps: stamps, writes: writes, earlyTolerance: earlyTolerance)
    }
}
