import CHapbridgeProtocol
import Hex

/// One frame from the board, checked (magic, length, CRC, payload length for its
/// type, all with the header's own helpers) and split into its fields.
public struct BoardFrame: Sendable, Equatable, CustomStringConvertible {
    public let sequence: UInt8
    public let type: FrameType
    public let payload: [UInt8]

    /// Decodes exactly one whole frame: the envelope, then the rules of payloads whose
    /// fields depend on each other (a reply's serial number, an I2C result's count).
    public init(decoding bytes: [UInt8]) throws(FrameDecodingError) {
        (sequence, type, payload) = try FrameEnvelope.open(bytes, payloadLengthOK: hb_board_payload_len_ok)
        try Self.checkFields(type: type, payload: payload, bytes: bytes)
    }

    public var description: String { "\(type) #\(sequence) [\(Hex.bytes(payload, separator: " "))]" }

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
        /// Protocol 1.1 (the negotiated minor is at least 1): what the board found in its
        /// boot section. nil in a 1.0 reply.
        public var bootloader: BootloaderKind?
        /// Protocol 1.1: the board's serial number (also its USB iSerialNumber). nil in a
        /// 1.0 reply or when the board sent none.
        public var serialNumber: BoardSerialNumber?
        /// Protocol 1.1 from firmware 0.2 on: the board's intake, the least board time
        /// (µs) between two stamped chip writes it keeps up with. nil when the reply
        /// does not state it (a 1.0 board, an older 1.1 one): pace it at
        /// `unstatedWriteSpacingMicroseconds`.
        public var writeSpacingMicroseconds: UInt16?
        /// Protocol 1.1 from firmware 0.2 on: the board's latch lead, how long (µs)
        /// before its stamp a command must be in its queue for the chip to take it on
        /// the stamp (PROTOCOL.md, "Stamped commands"). nil when the reply does not
        /// state it; 0 where the board's I2C takes no board time.
        public var latchLeadMicroseconds: UInt16?

        /// What a host paces a board at that does not state its intake: the slowest
        /// port this project has (protocol.h, `HB_UNSTATED_WRITE_SPACING_US`).
        public static let unstatedWriteSpacingMicroseconds = UInt16(HB_UNSTATED_WRITE_SPACING_US)

        /// The capability bits as a set.
        public var capabilitySet: BoardCapabilities { BoardCapabilities(rawValue: capabilities) }
    }

    public var helloReply: HelloReply? {
        guard type == .helloReply else { return nil }
        let identity = payload.count >= Int(HB_HELLO_REPLY_1_1_LEN)
        var reply = HelloReply(
            protocolMajor: payload[Int(HB_HELLO_REPLY_OFF_MAJOR)], protocolMinor: payload[Int(HB_HELLO_REPLY_OFF_MINOR)],
            firmwareMajor: payload[Int(HB_HELLO_REPLY_OFF_FW_MAJOR)], firmwareMinor: payload[Int(HB_HELLO_REPLY_OFF_FW_MINOR)],
            capabilities: payload.get16(at: HB_HELLO_REPLY_OFF_CAPS), queueCapacity: payload[Int(HB_HELLO_REPLY_OFF_QUEUE_CAP)],
            deviceID: payload[Int(HB_HELLO_REPLY_OFF_DEVICE_ID)], boardTime: payload.get32(at: HB_HELLO_REPLY_OFF_BOARD_US),
            keepAliveMilliseconds: payload.get16(at: HB_HELLO_REPLY_OFF_KEEPALIVE_MS),
            maxDriveMilliseconds: payload.get16(at: HB_HELLO_REPLY_OFF_MAX_DRIVE_MS),
            tickNanoseconds: payload.get16(at: HB_HELLO_REPLY_OFF_TICK_NS))
        if identity {
            reply.bootloader = BootloaderKind(rawValue: payload[Int(HB_HELLO_REPLY_OFF_BOOTLOADER)])
            reply.serialNumber = try? Self.serialNumber(in: payload) // checked at decode time
        }
        if payload.count >= Int(HB_HELLO_REPLY_INTAKE_LEN) {
            let spacing = payload.get16(at: HB_HELLO_REPLY_OFF_WRITE_SPACING_US)
            reply.writeSpacingMicroseconds = spacing > 0 ? spacing : nil
        }
        if payload.count >= Int(HB_HELLO_REPLY_LATCH_LEN) {
            reply.latchLeadMicroseconds = payload.get16(at: HB_HELLO_REPLY_OFF_LATCH_LEAD_US)
        }
        return reply
    }

    /// The serial field of a 1.1 HELLO_REPLY; nil when its length is 0.
    static func serialNumber(in payload: [UInt8]) throws(BoardSerialNumberError) -> BoardSerialNumber? {
        let n = Int(payload[Int(HB_HELLO_REPLY_OFF_SERIAL_LEN)])
        guard n > 0 else { return nil }
        guard n <= BoardSerialNumber.maximumLength else { throw .tooLong("", length: n) }
        let start = Int(HB_HELLO_REPLY_OFF_SERIAL)
        return try BoardSerialNumber(String(decoding: payload[start..<start + n], as: UTF8.self))
    }

    public struct I2CResult: Sendable, Equatable {
        /// The host sequence of the I2C_READ or I2C_WRITE this answers.
        public var requestSequence: UInt8
        public var address: UInt8
        public var register: UInt8
        /// Every byte acknowledged; false for a NACK or a bus error.
        public var acknowledged: Bool
        /// The bytes read (none for a write, or when not acknowledged).
        public var data: [UInt8]
    }

    public var i2cResult: I2CResult? {
        guard type == .i2cResult else { return nil }
        let start = Int(HB_I2C_RESULT_OFF_DATA)
        return I2CResult(
            requestSequence: payload[Int(HB_I2C_RESULT_OFF_SEQ)], address: payload[Int(HB_I2C_RESULT_OFF_ADDR)],
            register: payload[Int(HB_I2C_RESULT_OFF_REG)],
            acknowledged: payload[Int(HB_I2C_RESULT_OFF_STATUS)] == UInt8(HB_I2C_STATUS_ACK),
            data: Array(payload[start...]))
    }

    public struct Replaced: Sendable, Equatable {
        /// The host sequence of the REPLACE_FROM this answers.
        public var requestSequence: UInt8
        public var discardedCommands: UInt8
        public var freeSlots: UInt8
    }

    public var replaced: Replaced? {
        guard type == .replaced else { return nil }
        return Replaced(
            requestSequence: payload[Int(HB_REPLACED_OFF_SEQ)], discardedCommands: payload[Int(HB_REPLACED_OFF_DISCARDED)],
            freeSlots: payload[Int(HB_REPLACED_OFF_FREE)])
    }

    /// ACCEL_SAMPLES: the bench accelerometer's samples (PROTOCOL.md, "Accelerometer").
    public struct AccelSamples: Sendable, Equatable {
        /// Board time of the first sample (the board's estimate: within one period).
        public var firstBoardTime: UInt32
        public var periodNanoseconds: UInt32
        /// CTRL_REG4.FS: 0..3 = ±2, 4, 8, 16 g.
        public var fullScaleCode: UInt8
        /// HB_ACCEL_RES_*: 0 12-bit, 1 10-bit, 2 8-bit.
        public var resolution: UInt8
        /// Samples were lost (the FIFO overran) before these.
        public var lost: Bool
        /// X, Y, Z as the sensor gives them (left-justified), oldest first.
        public var raw: [[Int16]]

        /// g per count (LIS3DH datasheet Table 4), for the resolution and range.
        public var gPerCount: Double {
            let mg: [Double] =
                switch resolution {
                case UInt8(HB_ACCEL_RES_HIGH): [1, 2, 4, 12]
                case UInt8(HB_ACCEL_RES_NORMAL): [4, 8, 16, 48]
                default: [16, 32, 64, 192]
                }
            return mg[Int(fullScaleCode & 3)] / 1000
        }

        /// One axis of sample `i`, in g.
        public func g(sample i: Int, axis: Int) -> Double {
            let shift: Int16 =
                switch resolution {
                case UInt8(HB_ACCEL_RES_HIGH): 4
                case UInt8(HB_ACCEL_RES_NORMAL): 6
                default: 8
                }
            return Double(raw[i][axis] >> shift) * gPerCount
        }
    }

    public var accelSamples: AccelSamples? {
        guard type == .accelSamples else { return nil }
        let format = payload[Int(HB_ACCEL_OFF_FORMAT)]
        let n = Int(payload[Int(HB_ACCEL_OFF_COUNT)])
        var raw: [[Int16]] = []
        for i in 0..<n {
            let base = Int(HB_ACCEL_OFF_DATA) + i * Int(HB_ACCEL_SAMPLE_LEN)
            raw.append((0..<3).map { Int16(bitPattern: payload.get16(at: UInt32(base + 2 * $0))) })
        }
        return AccelSamples(
            firstBoardTime: payload.get32(at: HB_ACCEL_OFF_FIRST_US), periodNanoseconds: payload.get32(at: HB_ACCEL_OFF_PERIOD_NS),
            fullScaleCode: format & UInt8(HB_ACCEL_FORMAT_FS_MASK), resolution: (format >> UInt8(HB_ACCEL_FORMAT_RES_SHIFT)) & 3,
            lost: format & UInt8(HB_ACCEL_FORMAT_LOST) != 0, raw: raw)
    }

    /// Rules between fields that the length table cannot check.
    private static func checkFields(type: FrameType, payload: [UInt8], bytes: [UInt8]) throws(FrameDecodingError) {
        switch type {
        case .helloReply where payload.count >= Int(HB_HELLO_REPLY_1_1_LEN):
            do { _ = try serialNumber(in: payload) } catch {
                throw .malformedPayload(type: type, field: "serial number", rule: error.description, bytes)
            }
        case .i2cResult:
            let count = Int(payload[Int(HB_I2C_RESULT_OFF_COUNT)])
            guard payload.count == Int(HB_I2C_RESULT_MIN_LEN) + count else {
                throw .malformedPayload(
                    type: type, field: "count", rule: "\(count) bytes read but \(payload.count - Int(HB_I2C_RESULT_MIN_LEN)) follow", bytes)
            }
        case .accelSamples:
            let count = Int(payload[Int(HB_ACCEL_OFF_COUNT)])
            guard payload.count == Int(HB_ACCEL_OFF_DATA) + count * Int(HB_ACCEL_SAMPLE_LEN) else {
                throw .malformedPayload(type: type, field: "count", rule: "\(count) samples but \(payload.count) bytes", bytes)
            }
        default:
            break
        }
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
    /// The payload's fields break a rule of their type: which field, and the rule.
    case malformedPayload(type: FrameType, field: String, rule: String, [UInt8])
}
