import CHapbridgeProtocol
import Hex

/// A frame's type byte, with Swift names for the values `protocol.h` defines.
///
/// A struct over the raw byte rather than an enum: Swift enum raw values must be
/// literals, and the values must come from the header (never re-declared here).
/// Unknown bytes stay representable, which a decoder of untrusted input needs.
public struct FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ value: UInt32) { rawValue = UInt8(truncatingIfNeeded: value) }

    // host -> board
    public static let hello = FrameType(HB_T_HELLO)
    public static let sync = FrameType(HB_T_SYNC)
    public static let keepAlive = FrameType(HB_T_KEEPALIVE)
    public static let queueStatusRequest = FrameType(HB_T_QUEUE_STATUS_REQ)
    public static let chipStatusRequest = FrameType(HB_T_CHIP_STATUS_REQ)
    public static let stopAll = FrameType(HB_T_STOP_ALL)
    public static let clearFault = FrameType(HB_T_CLEAR_FAULT)
    public static let enterBootloader = FrameType(HB_T_ENTER_BOOTLOADER)
    /// 1.1: one untimed I2C transaction (a 1.0 board answers NAK UNKNOWN_TYPE).
    public static let i2cRead = FrameType(HB_T_I2C_READ)
    public static let i2cWrite = FrameType(HB_T_I2C_WRITE)
    /// 1.1: immediate, discards the queued commands stamped from a time on.
    public static let replaceFrom = FrameType(HB_T_REPLACE_FROM)
    /// 1.1 with the accelerometer capability: start or stop its samples.
    public static let accelStream = FrameType(HB_T_ACCEL_STREAM)
    public static let commandRTP = FrameType(HB_T_CMD_RTP)
    public static let commandRegisterWrite = FrameType(HB_T_CMD_REG_WRITE)
    public static let commandROMSequence = FrameType(HB_T_CMD_ROM_SEQ)
    public static let commandStop = FrameType(HB_T_CMD_STOP)
    // board -> host
    public static let helloReply = FrameType(HB_T_HELLO_REPLY)
    public static let syncReply = FrameType(HB_T_SYNC_REPLY)
    public static let queueStatus = FrameType(HB_T_QUEUE_STATUS)
    public static let chipStatus = FrameType(HB_T_CHIP_STATUS)
    public static let ack = FrameType(HB_T_ACK)
    public static let nak = FrameType(HB_T_NAK)
    public static let eventStopped = FrameType(HB_T_EVENT_STOPPED)
    public static let i2cResult = FrameType(HB_T_I2C_RESULT)
    public static let replaced = FrameType(HB_T_REPLACED)
    public static let accelSamples = FrameType(HB_T_ACCEL_SAMPLES)

    static let names: [FrameType: String] = [
        .hello: "HELLO", .sync: "SYNC", .keepAlive: "KEEPALIVE", .queueStatusRequest: "QUEUE_STATUS_REQ",
        .chipStatusRequest: "CHIP_STATUS_REQ", .stopAll: "STOP_ALL", .clearFault: "CLEAR_FAULT",
        .enterBootloader: "ENTER_BOOTLOADER", .commandRTP: "CMD_RTP", .commandRegisterWrite: "CMD_REG_WRITE",
        .commandROMSequence: "CMD_ROM_SEQ", .commandStop: "CMD_STOP", .helloReply: "HELLO_REPLY",
        .syncReply: "SYNC_REPLY", .queueStatus: "QUEUE_STATUS", .chipStatus: "CHIP_STATUS", .ack: "ACK",
        .nak: "NAK", .eventStopped: "EVENT_STOPPED", .i2cRead: "I2C_READ", .i2cWrite: "I2C_WRITE",
        .replaceFrom: "REPLACE_FROM", .i2cResult: "I2C_RESULT", .replaced: "REPLACED",
        .accelStream: "ACCEL_STREAM", .accelSamples: "ACCEL_SAMPLES",
    ]

    public var description: String { Self.names[self] ?? "type \(Hex.literal(rawValue, width: 2))" }
}

/// Why the board refused a frame (NAK payload byte 1).
public struct NakReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ value: UInt32) { rawValue = UInt8(truncatingIfNeeded: value) }

    public static let crc = NakReason(HB_NAK_CRC)
    public static let length = NakReason(HB_NAK_LENGTH)
    public static let sequenceGap = NakReason(HB_NAK_SEQ_GAP)
    public static let unknownType = NakReason(HB_NAK_UNKNOWN_TYPE)
    public static let badArgument = NakReason(HB_NAK_BAD_ARG)
    public static let queueFull = NakReason(HB_NAK_QUEUE_FULL)
    public static let notOpen = NakReason(HB_NAK_NOT_OPEN)
    public static let fault = NakReason(HB_NAK_FAULT)
    public static let version = NakReason(HB_NAK_VERSION)
    public static let outOfOrder = NakReason(HB_NAK_OUT_OF_ORDER)

    /// The name PROTOCOL.md uses ("QUEUE_FULL"), or the number for one it does not know.
    public var name: String {
        switch self {
        case .crc: "CRC"
        case .length: "LENGTH"
        case .sequenceGap: "SEQ_GAP"
        case .unknownType: "UNKNOWN_TYPE"
        case .badArgument: "BAD_ARG"
        case .queueFull: "QUEUE_FULL"
        case .notOpen: "NOT_OPEN"
        case .fault: "FAULT"
        case .version: "VERSION"
        case .outOfOrder: "OUT_OF_ORDER"
        default: "reason \(rawValue)"
        }
    }

    public var description: String { name }
}

/// Why the board stopped the actuator (EVENT_STOPPED, CHIP_STATUS).
public struct StopReason: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ value: UInt32) { rawValue = UInt8(truncatingIfNeeded: value) }

    public static let hostSilent = StopReason(HB_STOP_HOST_SILENT)
    public static let fault = StopReason(HB_STOP_FAULT)
    public static let maxDrive = StopReason(HB_STOP_MAX_DRIVE)
    public static let hostRequest = StopReason(HB_STOP_HOST_REQUEST)
    public static let bootloader = StopReason(HB_STOP_BOOTLOADER)
}
