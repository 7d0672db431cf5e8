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

    /// |write − stamp| for every sent RTP command, given the chip's RTP_INPUT writes
    /// in order (board µs, value). Each stamp takes the next write of its value not
    /// before it (less `earlyTolerance` µs of clock rounding): writes never run early,
    /// and safety stops' own zero writes are skipped over. Returns the errors and how
    /// many stamps found no write. (Board times as plain numbers: a run is far
    /// shorter than the 32-bit clock's 71-minute wrap.)
    func timingErrors(writes: [(time: Double, value: UInt8)], from firstStamp: UInt32 = 0, earlyTolerance: Double = 20)
        -> (errors: [Double], unmatched: Int)
    {
        var errors: [Double] = []
        var unmatched = 0
        var j = 0
        for (stamp, amplitude) in sent where stamp >= firstStamp {
            let due = Double(stamp)
            while j < writes.count, writes[j].value != amplitude || writes[j].time < due - earlyTolerance { j += 1 }
            guard j < writes.count else { unmatched += 1; continue }
            errors.append(abs(writes[j].time - due))
            j += 1
        }
        return (errors, unmatched)
    }
}
