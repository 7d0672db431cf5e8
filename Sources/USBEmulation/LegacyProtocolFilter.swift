import CHapbridgeProtocol

/// `--protocol 1.0`: the firmware core made to answer as firmware 0.1 did (protocol
/// 1.0, the core at commit 0b297a4), by rewriting whole, CRC-valid frames at the
/// board's input and output. Everything else is the current core's own doing.
///
/// Host → board:
/// - HELLO: its minor becomes 0, so the core answers at minor 0 with the 18-byte
///   reply, whatever the host offered (1.0 knew no minor but its own).
/// - I2C_READ, I2C_WRITE, REPLACE_FROM (1.1's frames): their type byte becomes one no
///   protocol version assigns, so the core answers `NAK UNKNOWN_TYPE` as 1.0 did,
///   after the same sequence check (1.0 checked the sequence, then the type), so the
///   session's numbering goes on exactly as on a 1.0 board.
/// - Every other byte passes unchanged and in order. The scan mirrors the core's own
///   decoder (`hb_decoder_push`: magic, a length above 48 rejected at once with 0xA5
///   taken as a new magic, then the whole frame and its CRC), so both cut the stream
///   at the same places; only the bytes of a frame still arriving wait for its end,
///   as the core would wait for them anyway.
///
/// Board → host:
/// - HELLO_REPLY: firmware 0.1 and the capabilities 1.0 had (1.1's register access,
///   REPLACE_FROM and identity bits cleared).
/// - The NAK of a frame whose type was replaced names the type the host sent.
struct LegacyProtocolFilter: Sendable {
    /// What firmware 0.1 reported (core.h then: HB_FW_VERSION 0.1; usb_ids.h: bcdDevice 0x0001).
    static let firmwareVersion: (major: UInt8, minor: UInt8) = (0, 1)
    static let bcdDevice: UInt16 = 0x0001
    /// Host frame types 1.1 added.
    static let laterHostTypes: Set<UInt8> = [UInt8(HB_T_I2C_READ), UInt8(HB_T_I2C_WRITE), UInt8(HB_T_REPLACE_FROM)]
    /// Capability bits 1.1 added.
    static let laterCapabilities = UInt16(HB_CAP_RAW_I2C | HB_CAP_REPLACE_FROM | HB_CAP_IDENTITY)
    /// A host frame type no protocol version assigns: what 1.1's frames become.
    static let unassignedType: UInt8 = 0x7F

    /// A candidate frame still arriving (starts with the magic).
    private var held: [UInt8] = []
    /// Host sequence numbers of frames whose type was replaced, with the type sent.
    private var replacedTypes: [UInt8: UInt8] = [:]

    // MARK: host → board

    mutating func hostToBoard(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes { take(byte, into: &out) }
        return out
    }

    private mutating func take(_ byte: UInt8, into out: inout [UInt8]) {
        let magic = UInt8(HB_FRAME_MAGIC)
        if held.isEmpty {
            if byte == magic { held = [byte] } else { out.append(byte) }
            return
        }
        if held.count == Int(HB_FRAME_OFFSET_LEN), byte > UInt8(HB_FRAME_MAX_PAYLOAD) {
            // The core rejects the length at once; a 0xA5 there starts its next frame.
            out.append(held[0])
            if byte == magic { held = [byte] } else {
                out.append(byte)
                held = []
            }
            return
        }
        held.append(byte)
        guard held.count >= Int(HB_FRAME_HEADER_LEN),
            held.count == Int(held[Int(HB_FRAME_OFFSET_LEN)]) + Int(HB_FRAME_OVERHEAD)
        else { return }
        let frame = held
        held = []
        out += Self.hasValidCRC(frame) ? rewrittenHostFrame(frame) : frame
    }

    private mutating func rewrittenHostFrame(_ frame: [UInt8]) -> [UInt8] {
        let type = frame[Int(HB_FRAME_OFFSET_TYPE)]
        let sequence = frame[Int(HB_FRAME_OFFSET_SEQ)]
        var f = frame
        if type == UInt8(HB_T_HELLO), f.count == Int(HB_HELLO_LEN + HB_FRAME_OVERHEAD) {
            f[Int(HB_FRAME_OFFSET_PAYLOAD + HB_HELLO_OFF_MINOR)] = 0
        } else if Self.laterHostTypes.contains(type) {
            f[Int(HB_FRAME_OFFSET_TYPE)] = Self.unassignedType
            replacedTypes[sequence] = type
        } else {
            return frame
        }
        Self.seal(&f)
        return f
    }

    // MARK: board → host

    /// One whole frame from the core (it only ever sends whole, valid frames).
    mutating func boardToHost(_ frame: [UInt8]) -> [UInt8] {
        guard frame.count >= Int(HB_FRAME_OVERHEAD) else { return frame }
        let p = Int(HB_FRAME_OFFSET_PAYLOAD)
        var f = frame
        switch UInt32(frame[Int(HB_FRAME_OFFSET_TYPE)]) {
        case HB_T_HELLO_REPLY where frame.count >= Int(HB_HELLO_REPLY_LEN + HB_FRAME_OVERHEAD):
            f[p + Int(HB_HELLO_REPLY_OFF_FW_MAJOR)] = Self.firmwareVersion.major
            f[p + Int(HB_HELLO_REPLY_OFF_FW_MINOR)] = Self.firmwareVersion.minor
            let caps = p + Int(HB_HELLO_REPLY_OFF_CAPS)
            let capabilities = (UInt16(f[caps]) | UInt16(f[caps + 1]) << 8) & ~Self.laterCapabilities
            f[caps] = UInt8(truncatingIfNeeded: capabilities)
            f[caps + 1] = UInt8(truncatingIfNeeded: capabilities >> 8)
        case HB_T_NAK where frame.count == Int(HB_NAK_LEN + HB_FRAME_OVERHEAD):
            let typeAt = p + Int(HB_NAK_OFF_TYPE)
            guard f[typeAt] == Self.unassignedType, let sent = replacedTypes.removeValue(forKey: f[p + Int(HB_NAK_OFF_SEQ)])
            else { return frame }
            f[typeAt] = sent
        default:
            return frame
        }
        Self.seal(&f)
        return f
    }

    // MARK: frame envelope

    /// CRC-16/CCITT-FALSE over length, sequence, type and payload (protocol.h).
    private static func crc(_ frame: [UInt8]) -> UInt16 {
        let covered = frame.count - Int(HB_FRAME_OVERHEAD) + Int(HB_FRAME_HEADER_LEN) - 1
        return frame.withUnsafeBufferPointer { b in
            b.baseAddress.map { hb_crc16($0 + Int(HB_FRAME_OFFSET_LEN), UInt32(covered)) } ?? 0
        }
    }

    private static func hasValidCRC(_ frame: [UInt8]) -> Bool {
        let at = frame.count - 2
        return crc(frame) == UInt16(frame[at]) | UInt16(frame[at + 1]) << 8
    }

    private static func seal(_ frame: inout [UInt8]) {
        let value = crc(frame)
        frame[frame.count - 2] = UInt8(truncatingIfNeeded: value)
        frame[frame.count - 1] = UInt8(truncatingIfNeeded: value >> 8)
    }
}
