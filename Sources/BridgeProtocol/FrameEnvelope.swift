import CHapbridgeProtocol

/// The checks every frame gets, in either direction: magic, length, CRC and the
/// payload length its type requires (the header's own helper for that direction).
enum FrameEnvelope {
    static func open(
        _ bytes: [UInt8], payloadLengthOK: (UInt8, UInt8) -> Bool
    ) throws(FrameDecodingError) -> (sequence: UInt8, type: FrameType, payload: [UInt8]) {
        let overhead = Int(HB_FRAME_OVERHEAD)
        guard bytes.count >= overhead else { throw .truncated(bytes) }
        guard bytes[Int(HB_FRAME_OFFSET_MAGIC)] == UInt8(HB_FRAME_MAGIC) else { throw .badMagic(bytes) }
        let length = Int(bytes[Int(HB_FRAME_OFFSET_LEN)])
        guard length <= Int(HB_FRAME_MAX_PAYLOAD), bytes.count == length + overhead else { throw .badLength(bytes) }
        let covered = Int(HB_FRAME_HEADER_LEN) - 1 + length
        let crc = bytes.withUnsafeBufferPointer { b in
            b.baseAddress.map { hb_crc16($0 + Int(HB_FRAME_OFFSET_LEN), UInt32(covered)) } ?? 0
        }
        guard crc == bytes.get16(at: HB_FRAME_HEADER_LEN + UInt32(length)) else { throw .badCRC(bytes) }
        let type = FrameType(rawValue: bytes[Int(HB_FRAME_OFFSET_TYPE)])
        guard payloadLengthOK(type.rawValue, UInt8(length)) else { throw .wrongPayloadLength(type: type, bytes) }
        let start = Int(HB_FRAME_OFFSET_PAYLOAD)
        return (bytes[Int(HB_FRAME_OFFSET_SEQ)], type, Array(bytes[start..<start + length]))
    }

    /// Cuts a run of whole frames at their length bytes (a transport may carry
    /// several in one transfer). A tail too short to be a frame is returned alone.
    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        let overhead = Int(HB_FRAME_OVERHEAD)
        while i < bytes.count {
            guard bytes.count - i >= overhead else { out.append(Array(bytes[i...])); break }
            let n = min(bytes.count - i, Int(bytes[i + Int(HB_FRAME_OFFSET_LEN)]) + overhead)
            out.append(Array(bytes[i..<i + n]))
            i += n
        }
        return out
    }
}
