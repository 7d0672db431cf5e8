import FirmwareCore
#if canImport(Glibc)
import Glibc
#endif

/// The core's hooks (hooks.h) for the hosted board: plain C function pointers, each
/// handed the board back through `context` (unretained: the board owns the core and
/// stops both threads before it goes).
extension HostedBoard {
    static func hooks(context: UnsafeMutableRawPointer) -> hb_hooks {
        hb_hooks(
            context: context,
            i2c_write: { context, address, bytes, length in
                guard let board = HostedBoard.from(context) else { return HB_I2C_NACK }
                let data = bytes.map { Array(UnsafeBufferPointer(start: $0, count: Int(length))) } ?? []
                return board.i2cWrite(address: address, data: data)
            },
            i2c_read: { context, address, register, bytes, length in
                guard let board = HostedBoard.from(context), let bytes else { return HB_I2C_NACK }
                return board.i2cRead(address: address, register: register, into: UnsafeMutableBufferPointer(start: bytes, count: Int(length)))
            },
            now_us: { _ in HostedClock.boardMicroseconds() },
            arm_timer: { context, at in HostedBoard.from(context)?.arm(at: at) },
            spin_until: { _, at in
                // Within spin_us of now: the wrap-safe difference is small and positive.
                let now = HostedClock.nanoseconds()
                let ahead = Int64(Int32(bitPattern: at &- UInt32(truncatingIfNeeded: now / 1000)))
                if ahead > 0 { HostedClock.spin(untilNanoseconds: (now / 1000 + UInt64(ahead)) * 1000) }
            },
            disarm_timer: { context in HostedBoard.from(context)?.disarm() },
            send_frame: { context, frame, length in
                guard let board = HostedBoard.from(context), let frame else { return }
                let bytes = Array(UnsafeBufferPointer(start: frame, count: Int(length)))
                let now = HostedClock.microseconds()
                board.shared.withLock { if !$0.halted { $0.outbox.append((bytes, now)) } }
            },
            send_room: nil,  // the outbox takes every frame
            enter_bootloader: nil,
            lock: { context in
                guard let board = HostedBoard.from(context) else { return }
                pthread_mutex_lock(board.coreLock)
            },
            unlock: { context in
                guard let board = HostedBoard.from(context) else { return }
                pthread_mutex_unlock(board.coreLock)
            },
            recent_status: { context, maxAge, status in
                guard let board = HostedBoard.from(context), let status,
                    let reading = board.port.recentStatus(maxAgeMicroseconds: maxAge)
                else { return false }
                status.pointee = reading
                return true
            })
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> HostedBoard? {
        context.map { Unmanaged<HostedBoard>.fromOpaque($0).takeUnretainedValue() }
    }

    /// From the service thread (under the core lock) or the timer thread itself.
    func arm(at: UInt32) {
        wake.withLock { armedAt = at }
        wake.signal()
    }

    func disarm() { wake.withLock { armedAt = nil } }

    /// The stamp of the command the timer is running (the queue's head: it is dropped
    /// only once its writes are done), as CLOCK_MONOTONIC ns near `nowNanoseconds`.
    private func runningStamp(nearNanoseconds now: UInt64) -> UInt64? {
        guard inTimer, let offset = MemoryLayout<hb_core>.offset(of: \.queue) else { return nil }
        let queue = (UnsafeMutableRawPointer(core) + offset).assumingMemoryBound(to: hb_queue.self)
        guard let head = hb_queue_peek(queue) else { return nil }
        return HostedClock.hostMicroseconds(ofBoard: head.pointee.at_us, nearHost: now / 1000) * 1000
    }

    func i2cWrite(address: UInt8, data: [UInt8]) -> hb_i2c_result {
        guard failure == nil else { return HB_I2C_NACK }
        var sent: UInt64 = 0
        let result = port.write(address: address, bytes: data) { sent = HostedClock.nanoseconds() }
        let answered = HostedClock.nanoseconds()
        let stamp = runningStamp(nearNanoseconds: sent == 0 ? answered : sent)
        shared.withLock { s in
            if s.writeTimes.count < configuration.writeTimeCapacity {
                s.writeTimes.append(HostedWriteTime(bytes: data, sentNanoseconds: sent, answeredNanoseconds: answered, stampNanoseconds: stamp, timer: inTimer ? timerTrace : nil))
            } else {
                s.unrecordedWrites += 1
            }
        }
        return record(result)
    }

    func i2cRead(address: UInt8, register: UInt8, into out: UnsafeMutableBufferPointer<UInt8>) -> hb_i2c_result {
        guard failure == nil else { return HB_I2C_NACK }
        let (result, data) = port.read(address: address, register: register, count: out.count)
        for (i, b) in data.enumerated() where i < out.count { out[i] = b }
        return record(result)
    }

    /// A failed adapter ends the board (the transport reports the link gone); a NACK is
    /// the core's to handle (an I2C fault).
    private func record(_ result: HostedI2CResult) -> hb_i2c_result {
        switch result {
        case .acknowledged: return HB_I2C_ACK
        case .notAcknowledged: return HB_I2C_NACK
        case .adapterFailure(let why):
            shared.withLock { if $0.failure == nil { $0.failure = why } }
            return HB_I2C_NACK
        }
    }
}
