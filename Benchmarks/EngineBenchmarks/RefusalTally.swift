import BridgeProtocol
import DeviceInterface

/// A pass-through `FrameTransport` that counts the board's NAKs by reason, so a run
/// can say why frames were refused (the engine counts them, without the reason).
final class RefusalTally: FrameTransport {
    let inner: any FrameTransport
    private(set) var reasons: [UInt8: Int] = [:]

    init(_ inner: any FrameTransport) { self.inner = inner }

    var summary: String { inner.summary }
    var hostMicroseconds: UInt64 { inner.hostMicroseconds }
    var isRealTime: Bool { inner.isRealTime }
    func close() { inner.close() }
    func send(_ bytes: [UInt8]) throws(DeviceError) { try inner.send(bytes) }

    func poll() -> [DeviceEvent] {
        let events = inner.poll()
        for case .frame(let bytes, _) in events {
            if let nak = (try? BoardFrame(decoding: bytes))?.nak { reasons[nak.reason.rawValue, default: 0] += 1 }
        }
        return events
    }

    func wait(untilHostMicroseconds t: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        try await inner.wait(untilHostMicroseconds: t, isolation: isolation)
    }

    /// The NAKs since the last call, e.g. "QUEUE_FULL ×3, OUT_OF_ORDER ×1", or "none".
    func take() -> String {
        defer { reasons = [:] }
        guard !reasons.isEmpty else { return "none" }
        return reasons.sorted { $0.key < $1.key }.map { "\(Self.name(NakReason(rawValue: $0.key))) ×\($0.value)" }.joined(separator: ", ")
    }

    /// PROTOCOL.md's names for the NAK reasons.
    static func name(_ reason: NakReason) -> String {
        let names: [NakReason: String] = [
            .crc: "CRC", .length: "LENGTH", .sequenceGap: "SEQ_GAP", .unknownType: "UNKNOWN_TYPE", .badArgument: "BAD_ARG",
            .queueFull: "QUEUE_FULL", .notOpen: "NOT_OPEN", .fault: "FAULT", .version: "VERSION", .outOfOrder: "OUT_OF_ORDER",
        ]
        return names[reason] ?? "reason \(reason.rawValue)"
    }
}
