import CHapbridgeProtocol
import Hex

/// One frame from the host, checked like `BoardFrame`. The firmware decodes these
/// in C; Swift needs them to see what a transport carried (traces, benchmarks that
/// match each chip write to the stamp it was sent with).
public struct HostFrame: Sendable, Equatable, CustomStringConvertible {
    public let sequence: UInt8
    public let type: FrameType
    public let payload: [UInt8]

    /// Decodes exactly one whole frame.
    public init(decoding bytes: [UInt8]) throws(FrameDecodingError) {
        (sequence, type, payload) = try FrameEnvelope.open(bytes, payloadLengthOK: hb_host_payload_len_ok)
    }

    /// Every frame in a run of whole frames, in order.
    public static func decodeAll(_ bytes: [UInt8]) throws(FrameDecodingError) -> [HostFrame] {
        var frames: [HostFrame] = []
        for f in FrameEnvelope.split(bytes) { frames.append(try HostFrame(decoding: f)) }
        return frames
    }

    public var description: String { "\(type) #\(sequence) [\(Hex.bytes(payload, separator: " "))]" }

    /// The board time a timed command (RTP, register write, ROM sequence, stop) is
    /// stamped for; nil for untimed frames.
    public var stamp: UInt32? {
        switch type {
        case .commandRTP, .commandRegisterWrite, .commandROMSequence, .commandStop: payload.get32(at: HB_CMD_OFF_AT_US)
        default: nil
        }
    }

    /// RTP_INPUT value of a CMD_RTP.
    public var rtpAmplitude: UInt8? {
        type == .commandRTP ? payload[Int(HB_CMD_RTP_OFF_AMPLITUDE)] : nil
    }
}
