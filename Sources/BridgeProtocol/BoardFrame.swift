import CHapbridgeProtocol

/// One frame from the board, checked (magic, length, CRC, payload length for its
/// type, all with the header's own helpers) and split into its fields.
public struct BoardFrame: Sendable, Equatable, CustomStringConvertible {
    public let sequence: UInt8
    public let type: FrameType
    public let payload: [UInt8]

    /// Decodes exactly one whole frame.
    public init(decoding bytes: [UInt8]) throws(FrameDecodingError) {
        (sequence, type, payload) = try FrameEnvelope.open(bytes, payloadLengthOK: hb_board_payload_len_ok)
    }

    public var description: String { "\(type) #\(sequence) \(payload.map { String($0, radix: 16) })" }

    // MARK: typed views (nil when the frame is of another type)

    public struct HelloReply: Sendable, Equatable {
        public var protocolMajor, protocolMinor, firmwareMajor, firmwareMinor: UInt8
        public var capabilities: UInt16
        public var queueCapacity: UInt8
        /// STATUS.DEVICE_ID of the chip; 0xFF when no chip answered.
        public var deviceID: UInt8
        public var boardTime: UInt32
        public var keepAliveMilliseconds: UInt16
        public var maxDriveMilliseconds: UInt16
        public var tickNanoseconds: UInt16
    }

    public var helloReply: HelloReply? {
        guard type == .helloReply else { return nil }
        return HelloReply(
            protocolMajor: payload[Int(HB_HELLO_REPLY_OFF_MAJOR)], protocolMinor: payload[Int(HB_HELLO_REPLY_OFF_MINOR)],
            firmwareMajor: payload[Int(HB_HELLO_REPLY_OFF_FW_MAJOR)], firmwareMinor: payload[Int(HB_HELLO_REPLY_OFF_FW_MINOR)],
            capabilities: payload.get16(at: HB_HELLO_REPLY_OFF_CAPS), queueCapacity: payload[Int(HB_HELLO_REPLY_OFF_QUEUE_CAP)],
            deviceID: payload[Int(HB_HELLO_REPLY_OFF_DEVICE_ID)], boardTime: payload.get32(at: HB_HELLO_REPLY_OFF_BOARD_US),
            keepAliveMilliseconds: payload.get16(at: HB_HELLO_REPLY_OFF_KEEPALIVE_MS),
            maxDriveMilliseconds: payload.get16(at: HB_HELLO_REPLY_OFF_MAX_DRIVE_MS),
            tickNanoseconds: payload.get16(at: HB_HELLO_REPLY_OFF_TICK_NS))
    }

    public struct SyncReply: Sendable, Equatable {
        public var token: UInt32
        /// Board time when the SYNC was decoded, and when the reply was built.
        public var receivedAt: UInt32
        public var sentAt: UInt32
    }

    public var syncReply: SyncReply? {
        guard type == .syncReply else { return nil }
        return SyncReply(
            token: payload.get32(at: HB_SYNC_REPLY_OFF_TOKEN), receivedAt: payload.get32(at: HB_SYNC_REPLY_OFF_RX_US),
            sentAt: payload.get32(at: HB_SYNC_REPLY_OFF_TX_US))
    }

    public struct Nak: Sendable, Equatable {
        /// Sequence and type bytes as received (untrusted after a CRC or length error).
        public var sequence: UInt8
        public var reason: NakReason
        public var expectedSequence: UInt8
        public var type: FrameType
    }

    public var nak: Nak? {
        guard type == .nak else { return nil }
        return Nak(
            sequence: payload[Int(HB_NAK_OFF_SEQ)], reason: NakReason(rawValue: payload[Int(HB_NAK_OFF_REASON)]),
            expectedSequence: payload[Int(HB_NAK_OFF_EXPECTED)], type: FrameType(rawValue: payload[Int(HB_NAK_OFF_TYPE)]))
    }

    public struct Ack: Sendable, Equatable {
        public var sequence: UInt8
        public var type: FrameType
    }

    public var ack: Ack? {
        guard type == .ack else { return nil }
        return Ack(sequence: payload[Int(HB_ACK_OFF_SEQ)], type: FrameType(rawValue: payload[Int(HB_ACK_OFF_TYPE)]))
    }

    public struct Stopped: Sendable, Equatable {
        public var reason: StopReason
        public var boardTime: UInt32
        public var flushedCommands: UInt8
    }

    public var stopped: Stopped? {
        guard type == .eventStopped else { return nil }
        return Stopped(
            reason: StopReason(rawValue: payload[Int(HB_STOPPED_OFF_REASON)]), boardTime: payload.get32(at: HB_STOPPED_OFF_AT_US),
            flushedCommands: payload[Int(HB_STOPPED_OFF_FLUSHED)])
    }

    public struct QueueStatus: Sendable, Equatable {
        public var freeSlots, capacity: UInt8
        public var underruns: UInt16
        public var lastExecutedStamp, lastExecutedStart: UInt32
        public var lastAcceptedSequence: UInt8
        public var framesRejected: UInt16
        public var commandsExecuted: UInt32
    }

    public var queueStatus: QueueStatus? {
        guard type == .queueStatus else { return nil }
        return QueueStatus(
            freeSlots: payload[Int(HB_QSTAT_OFF_FREE)], capacity: payload[Int(HB_QSTAT_OFF_CAPACITY)],
            underruns: payload.get16(at: HB_QSTAT_OFF_UNDERRUNS), lastExecutedStamp: payload.get32(at: HB_QSTAT_OFF_LAST_AT_US),
            lastExecutedStart: payload.get32(at: HB_QSTAT_OFF_LAST_RUN_US), lastAcceptedSequence: payload[Int(HB_QSTAT_OFF_LAST_SEQ)],
            framesRejected: payload.get16(at: HB_QSTAT_OFF_REJECTED), commandsExecuted: payload.get32(at: HB_QSTAT_OFF_EXECUTED))
    }

    public struct ChipStatus: Sendable, Equatable {
        /// STATUS as just read; 0xFF when the chip did not answer.
        public var statusRegister: UInt8
        public var faults: UInt8
        public var lastStopReason: StopReason
        public var driving: Bool
        /// Last MODE written; 0xFF unknown.
        public var modeRegister: UInt8
        public var i2cErrors: UInt16
        public var boardTime: UInt32
    }

    public var chipStatus: ChipStatus? {
        guard type == .chipStatus else { return nil }
        return ChipStatus(
            statusRegister: payload[Int(HB_CSTAT_OFF_STATUS_REG)], faults: payload[Int(HB_CSTAT_OFF_FAULTS)],
            lastStopReason: StopReason(rawValue: payload[Int(HB_CSTAT_OFF_STOP_REASON)]),
            driving: payload[Int(HB_CSTAT_OFF_DRIVING)] != 0, modeRegister: payload[Int(HB_CSTAT_OFF_MODE_REG)],
            i2cErrors: payload.get16(at: HB_CSTAT_OFF_I2C_ERRORS), boardTime: payload.get32(at: HB_CSTAT_OFF_BOARD_US))
    }
}

/// A board frame that does not decode; carries the bytes for the report.
public enum FrameDecodingError: Error, Equatable, Sendable {
    case truncated([UInt8])
    case badMagic([UInt8])
    case badLength([UInt8])
    case badCRC([UInt8])
    case wrongPayloadLength(type: FrameType, [UInt8])
}
