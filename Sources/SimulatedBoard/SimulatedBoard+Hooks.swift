import DRV2605
import DRV2605Model
import FirmwareCore
import SensorModel

/// The firmware core's hooks (hooks.h) for the simulated board: plain C function
/// pointers, each handed the board back through `context` (an unretained pointer:
/// the board owns the core, so it outlives every call). `lock`, `unlock` and
/// `spin_until` stay NULL: the timer callback and the main context run on the
/// owner's one thread, and virtual time never needs spinning to.
extension SimulatedBoard {
    /// Built per board rather than kept in a static: `hb_hooks` holds a raw pointer,
    /// so it is not `Sendable`, and each board's copy carries its own context.
    static func hooks(context: UnsafeMutableRawPointer) -> hb_hooks {
        hb_hooks(
            context: context,
            i2c_write: { context, address, bytes, length in
                guard let board = SimulatedBoard.from(context) else { return HB_I2C_NACK }
                let data = bytes.map { Array(UnsafeBufferPointer(start: $0, count: Int(length))) } ?? []
                return board.i2cWrite(address: address, data: data)
            },
            i2c_read: { context, address, register, bytes, length in
                guard let board = SimulatedBoard.from(context), let bytes else { return HB_I2C_NACK }
                return board.i2cRead(address: address, register: register, into: UnsafeMutableBufferPointer(start: bytes, count: Int(length)))
            },
            now_us: { context in SimulatedBoard.from(context)?.boardTime ?? 0 },
            arm_timer: { context, at in SimulatedBoard.from(context)?.arm(at: at) },
            spin_until: nil,
            disarm_timer: { context in SimulatedBoard.from(context)?.armedAt = nil },
            send_frame: { context, frame, length in
                guard let board = SimulatedBoard.from(context), let frame else { return }
                board.outbox.append(Array(UnsafeBufferPointer(start: frame, count: Int(length))))
            },
            send_room: { context in
                guard let board = SimulatedBoard.from(context), let room = board.transmitRoom else { return .max }
                // What the owner's port model has room for, less the frames this board
                // sent since the owner last took them (they are on their way to it).
                let pending = board.outbox.reduce(0) { $0 + $1.count }
                return UInt8(clamping: max(0, room() - pending))
            },
            enter_bootloader: { context in SimulatedBoard.from(context)?.bootloaderEntries += 1 },
            lock: nil,
            unlock: nil,
            recent_status: nil)
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> SimulatedBoard? {
        context.map { Unmanaged<SimulatedBoard>.fromOpaque($0).takeUnretainedValue() }
    }

    /// `at` is board time; it is in the past when the wrap-safe difference is not
    /// positive ("at once if past", hooks.h).
    func arm(at: UInt32) {
        let ahead = Int32(bitPattern: at &- boardTime)
        armedAt = ahead > 0 ? time + UInt64(ahead) : time
    }

    /// START, address+W, data, STOP on the model. The first data byte is the register
    /// pointer; the rest auto-increment from it.
    func i2cWrite(address: UInt8, data: [UInt8]) -> hb_i2c_result {
        var acknowledged = true
        do {
            if let sensor = accelerometer, address == sensor.address {
                try sensor.i2cWrite(address: address, register: data.first ?? 0, bytes: Array(data.dropFirst()))
            } else {
                try chip.i2cWrite(address: address, register: data.first ?? 0, bytes: Array(data.dropFirst()))
            }
        } catch {
            acknowledged = false
        }
        log(I2CTransaction(time: time, boardTime: boardTime, address: address, kind: .write, bytes: data, acknowledged: acknowledged))
        return acknowledged ? HB_I2C_ACK : HB_I2C_NACK
    }

    func i2cRead(address: UInt8, register: UInt8, into out: UnsafeMutableBufferPointer<UInt8>) -> hb_i2c_result {
        var read: [UInt8] = []
        var acknowledged = true
        do {
            if let sensor = accelerometer, address == sensor.address {
                read = try sensor.i2cRead(address: address, register: register, count: out.count)
            } else {
                read = try chip.i2cRead(address: address, register: register, count: out.count)
            }
            for (i, b) in read.enumerated() where i < out.count { out[i] = b }
        } catch {
            acknowledged = false
        }
        log(I2CTransaction(time: time, boardTime: boardTime, address: address, kind: .read, bytes: [register] + read, acknowledged: acknowledged))
        return acknowledged ? HB_I2C_ACK : HB_I2C_NACK
    }

    func log(_ transaction: I2CTransaction) {
        if i2cLog.count < configuration.i2cLogCapacity {
            i2cLog.append(transaction)
        } else {
            unloggedI2CTransactions += 1
        }
    }
}
