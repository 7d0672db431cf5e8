import CHapbridgeProtocol
import Hex

/// Builds host -> board frames with `hb_frame_encode` from `protocol.h` (the same
/// encoder the firmware uses for its replies), numbering them as the protocol asks:
/// 0...255, +1 per frame, wrapping.
///
/// A value type: each connection owns one and mutates it as it sends.
public struct HostFrameEncoder: Sendable {
    /// The sequence number the next frame will carry.
    public var nextSequence: UInt8

    public init(firstSequence: UInt8 = 0) { nextSequence = firstSequence }

    /// Any frame, numbered. Fails only for a payload longer than the protocol allows.
    public mutating func frame(_ type: FrameType, payload: [UInt8] = []) throws(BridgeProtocolError) -> [UInt8] {
        let bytes = try Self.encode(sequence: nextSequence, type: type, payload: payload)
        nextSequence &+= 1
        return bytes
    }

    /// One frame with an explicit sequence number (no numbering state).
    public static func encode(sequence: UInt8, type: FrameType, payload: [UInt8]) throws(BridgeProtocolError) -> [UInt8] {
        guard payload.count <= Int(HB_FRAME_MAX_PAYLOAD) else {
            throw .payloadTooLong(type: type, length: payload.count)
        }
        var out = [UInt8](repeating: 0, count: Int(HB_FRAME_MAX_LEN))
        let written = out.withUnsafeMutableBufferPointer { o in
            payload.withUnsafeBufferPointer { p in
                hb_frame_encode(o.baseAddress, sequence, type.rawValue, p.baseAddress, UInt8(payload.count))
            }
        }
        return Array(out.prefix(Int(written)))
    }

    // MARK: the host frames of PROTOCOL.md

    /// The protocol minor this host speaks (`protocol.h`). A board answers HELLO at
    /// min(this, its own) and lays its reply out for that minor.
    public static let protocolMinor = UInt8(HB_PROTO_VERSION_MINOR)
    /// The protocol major this host speaks; a board of another major refuses HELLO.
    public static let protocolMajor = UInt8(HB_PROTO_VERSION_MAJOR)
    /// The keep-alive a board keeps when HELLO asks for none (HB_DEFAULT_KEEPALIVE_MS):
    /// the one default, which the link and the engine offer too.
    public static let defaultKeepAliveMilliseconds = UInt16(HB_DEFAULT_KEEPALIVE_MS)
    /// The continuous-drive limit a board keeps when HELLO asks for none
    /// (HB_DEFAULT_MAX_DRIVE_MS, 5 s): what a link's bench session gets.
    public static let defaultMaxDriveMilliseconds = UInt16(HB_DEFAULT_MAX_DRIVE_MS)
    /// The longest continuous-drive limit a board grants (HB_MAX_DRIVE_LIMIT_MS, 30 s):
    /// what the engine asks for, since a pattern may drive that long without a pause.
    public static let maximumMaxDriveMilliseconds = UInt16(HB_MAX_DRIVE_LIMIT_MS)

    /// HELLO: opens (or reopens) a session. 0 means the board's default for either limit.
    /// `protocolMinor` below this host's asks for an older reply layout (tests of 1.0 hosts).
    public mutating func hello(
        keepAliveMilliseconds: UInt16 = 0, maxDriveMilliseconds: UInt16 = 0, protocolMinor: UInt8 = Self.protocolMinor
    ) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: Int(HB_HELLO_LEN))
        p[Int(HB_HELLO_OFF_MAJOR)] = UInt8(HB_PROTO_VERSION_MAJOR)
        p[Int(HB_HELLO_OFF_MINOR)] = protocolMinor
        p.put16(keepAliveMilliseconds, at: HB_HELLO_OFF_KEEPALIVE_MS)
        p.put16(maxDriveMilliseconds, at: HB_HELLO_OFF_MAX_DRIVE_MS)
        return fixed(.hello, p)
    }

    public mutating func sync(token: UInt32) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: Int(HB_SYNC_LEN))
        p.put32(token, at: HB_SYNC_OFF_TOKEN)
        return fixed(.sync, p)
    }

    public mutating func keepAlive() -> [UInt8] { fixed(.keepAlive, []) }
    public mutating func queueStatusRequest() -> [UInt8] { fixed(.queueStatusRequest, []) }
    public mutating func chipStatusRequest() -> [UInt8] { fixed(.chipStatusRequest, []) }
    public mutating func stopAll() -> [UInt8] { fixed(.stopAll, []) }
    public mutating func clearFault() -> [UInt8] { fixed(.clearFault, []) }

    public mutating func enterBootloader() -> [UInt8] {
        var p = [UInt8](repeating: 0, count: Int(HB_ENTER_BOOTLOADER_LEN))
        p.put32(HB_BOOT_MAGIC, at: HB_BOOT_OFF_MAGIC)
        return fixed(.enterBootloader, p)
    }

    /// I2C_READ (1.1): `count` bytes (1...32) from `register` on, at 7-bit `address`; untimed,
    /// works without a session. The board answers I2C_RESULT with this frame's sequence.
    public mutating func i2cRead(address: UInt8, register: UInt8, count: Int) throws(BridgeProtocolError) -> [UInt8] {
        try Self.checkI2C(address: address, count: count)
        var p = [UInt8](repeating: 0, count: Int(HB_I2C_READ_LEN))
        p[Int(HB_I2C_OFF_ADDR)] = address
        p[Int(HB_I2C_OFF_REG)] = register
        p[Int(HB_I2C_READ_OFF_COUNT)] = UInt8(truncatingIfNeeded: count)
        return try frame(.i2cRead, payload: p)
    }

    /// I2C_WRITE (1.1): `data` (1...32 bytes) from `register` on, one auto-increment write;
    /// untimed, needs a session and no latched fault.
    public mutating func i2cWrite(address: UInt8, register: UInt8, data: [UInt8]) throws(BridgeProtocolError) -> [UInt8] {
        try Self.checkI2C(address: address, count: data.count)
        return try frame(.i2cWrite, payload: [address, register] + data)
    }

    private static func checkI2C(address: UInt8, count: Int) throws(BridgeProtocolError) {
        guard address <= UInt8(HB_I2C_MAX_ADDR) else { throw .i2cAddress(address) }
        guard (1...Int(HB_I2C_MAX_DATA)).contains(count) else { throw .i2cByteCount(count) }
    }

    /// REPLACE_FROM (1.1): the board discards its queued commands stamped at or after `at`
    /// (board time) and answers REPLACED; stream the new commands from `at` on after it.
    /// ACCEL_STREAM: the board's LIS3DH at CTRL_REG1.ODR code `rate` (0 stops) and
    /// CTRL_REG4.FS code `fullScale`.
    public mutating func accelStream(rate: UInt8, fullScale: UInt8) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: Int(HB_ACCEL_STREAM_LEN))
        p[Int(HB_ACCEL_STREAM_OFF_ODR)] = rate
        p[Int(HB_ACCEL_STREAM_OFF_FS)] = fullScale
        return fixed(.accelStream, p)
    }

    public mutating func replaceFrom(at: UInt32) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: Int(HB_REPLACE_FROM_LEN))
        p.put32(at, at: HB_REPLACE_OFF_AT_US)
        return fixed(.replaceFrom, p)
    }

    /// CMD_RTP: RTP_INPUT = `amplitude` at board time `at`.
    public mutating func rtp(at: UInt32, amplitude: UInt8) -> [UInt8] {
        var p = stamp(at, length: HB_CMD_RTP_LEN)
        p[Int(HB_CMD_RTP_OFF_AMPLITUDE)] = amplitude
        return fixed(.commandRTP, p)
    }

    /// CMD_REG_WRITE: one register at board time `at`.
    public mutating func registerWrite(at: UInt32, register: UInt8, value: UInt8) -> [UInt8] {
        var p = stamp(at, length: HB_CMD_REG_WRITE_LEN)
        p[Int(HB_CMD_REG_OFF_REG)] = register
        p[Int(HB_CMD_REG_OFF_VALUE)] = value
        return fixed(.commandRegisterWrite, p)
    }

    /// CMD_ROM_SEQ: 1...8 WAV_FRM_SEQ entries, then GO, at board time `at`.
    public mutating func romSequence(at: UInt32, entries: [UInt8]) throws(BridgeProtocolError) -> [UInt8] {
        guard (1...Int(HB_CMD_ROM_MAX_ENTRIES)).contains(entries.count) else {
            throw .sequenceLength(entries.count)
        }
        var p = stamp(at, length: HB_CMD_ROM_OFF_ENTRIES)
        p += entries
        return try frame(.commandROMSequence, payload: p)
    }

    /// CMD_STOP: the stop policy at board time `at`.
    public mutating func stop(at: UInt32) -> [UInt8] { fixed(.commandStop, stamp(at, length: HB_CMD_STOP_LEN)) }

    private func stamp(_ at: UInt32, length: UInt32) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: Int(length))
        p.put32(at, at: HB_CMD_OFF_AT_US)
        return p
    }

    /// Frames whose payload length is fixed by the header and so always fits.
    private mutating func fixed(_ type: FrameType, _ payload: [UInt8]) -> [UInt8] {
        do { return try frame(type, payload: payload) } catch {
            // Unreachable: every fixed payload above is at most 6 bytes of 48.
            return []
        }
    }
}

/// What the Swift side of the protocol can refuse before anything is sent.
public enum BridgeProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    case payloadTooLong(type: FrameType, length: Int)
    case sequenceLength(Int)
    /// I2C addresses are 7-bit.
    case i2cAddress(UInt8)
    /// One untimed transaction moves 1...32 bytes.
    case i2cByteCount(Int)

    public var description: String {
        switch self {
        case .payloadTooLong(let t, let n): "\(t) payload of \(n) bytes exceeds \(HB_FRAME_MAX_PAYLOAD)"
        case .sequenceLength(let n): "a ROM sequence holds 1...\(HB_CMD_ROM_MAX_ENTRIES) entries, not \(n)"
        case .i2cAddress(let a): "I2C address \(Hex.literal(a, width: 2)) is not a 7-bit address (at most 0x7F)"
        case .i2cByteCount(let n): "one I2C transaction moves 1...\(HB_I2C_MAX_DATA) bytes, not \(n)"
        }
    }
}

extension Array where Element == UInt8 {
    /// Little-endian stores through the header's own helpers.
    mutating func put16(_ v: UInt16, at offset: UInt32) {
        withUnsafeMutableBufferPointer { b in
            guard let base = b.baseAddress, Int(offset) + 2 <= b.count else { return }
            hb_put_u16(base + Int(offset), v)
        }
    }

    mutating func put32(_ v: UInt32, at offset: UInt32) {
        withUnsafeMutableBufferPointer { b in
            guard let base = b.baseAddress, Int(offset) + 4 <= b.count else { return }
            hb_put_u32(base + Int(offset), v)
        }
    }

    func get16(at offset: UInt32) -> UInt16 {
        withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, Int(offset) + 2 <= b.count else { return 0 }
            return hb_get_u16(base + Int(offset))
        }
    }

    func get32(at offset: UInt32) -> UInt32 {
        withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, Int(offset) + 4 <= b.count else { return 0 }
            return hb_get_u32(base + Int(offset))
        }
    }
}

extension HostFrameEncoder {
    /// What a host sends after a CRC or length NAK so the next frame lands: one
    /// longest frame's worth of zeros completes any false frame a stray 0xA5 began
    /// (PROTOCOL.md, "Resynchronising").
    public static let resynchronisation = [UInt8](repeating: 0, count: Int(HB_FRAME_MAX_LEN))
}
