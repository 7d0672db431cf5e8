import DRV2605Model
import DeviceInterface
import RealTime

/// One I2C transaction as the chip saw it, START (or repeated START) to STOP.
public struct I2CTargetTransaction: Sendable, Equatable {
    public var address: UInt8
    public var isRead: Bool
    /// The address byte was acknowledged.
    public var acknowledged: Bool
    /// After the address byte: for a write the register byte then the data; for a
    /// read the bytes the chip sent.
    public var bytes: [UInt8]
    /// The chip's virtual time at the START (µs).
    public var chipMicroseconds: UInt64
    /// The host's CLOCK_MONOTONIC at the START (µs): when the emulated FT232H ran the
    /// transfer that carried it, on the clock the host's own events are stamped with.
    public var hostMicroseconds: UInt64
}

/// A DRV2605 on the I2C lines, bit by bit: what the emulated FT232H's pins drive is
/// turned into START, address, ACK, data and STOP as the chip's I2C block sees them
/// (I2C-bus specification UM10204 §3.1), and each byte into the chip model's own
/// register access (`DRV2605Chip.i2cWrite` / `i2cRead`, one register at a time with
/// the chip's auto-increment).
///
/// The target samples SDA on SCL's rising edge and changes its own SDA only after a
/// falling edge (ACK, read data), as a real target does; an SDA change while SCL is
/// high is a START (falling) or STOP (rising). A NACKed address or data byte leaves
/// the target ignoring the bus until the next START or STOP.
final class I2CTarget {
    let chip: DRV2605Chip
    /// Whether the target lets SDA go (true) or pulls it low.
    private(set) var sdaReleased = true
    private var scl = true
    private var sda = true
    private var phase = Phase.idle
    private var isRead = false
    private var pointer: UInt8 = 0
    private var registerSet = false
    private var masterAcked = false
    private var current: I2CTargetTransaction?
    private(set) var log: [I2CTargetTransaction] = []

    private enum Phase {
        case idle
        /// Bits of a byte from the master (`address`: the first after START).
        case receiving(bits: Int, byte: UInt8, address: Bool)
        /// The 9th clock of a received byte; what follows it.
        case acknowledging(then: Next)
        /// Bits of a byte to the master.
        case sending(bits: Int, byte: UInt8)
        /// The master's ACK after a sent byte.
        case masterAcknowledge
    }

    private enum Next { case receive, send, ignore }

    init(chip: DRV2605Chip) { self.chip = chip }

    /// The lines as the other drivers (the FT232H's pins, the pull-ups) make them;
    /// the target's own pull on SDA is ANDed in here.
    func lines(scl newSCL: Bool, sda masterSDA: Bool) {
        // One GPIO write can change both lines: SCL falling is taken first and SCL
        // rising last, so a data change around a clock edge is never read as a START/STOP.
        if scl && !newSCL {
            scl = false
            falling()
        }
        let newSDA = masterSDA && sdaReleased
        if newSDA != sda {
            sda = newSDA
            if scl { newSDA ? stopCondition() : startCondition() }
        }
        if !scl && newSCL {
            scl = true
            rising()
        }
        // The target's own SDA changes on the falling edge: recompute the line.
        sda = masterSDA && sdaReleased
    }

    /// The SDA line as the master reads it.
    func sdaLine(masterSDA: Bool) -> Bool { masterSDA && sdaReleased }

    /// Takes the transactions seen since the last call.
    func drainLog() -> [I2CTargetTransaction] {
        defer { log = [] }
        return log
    }

    private func startCondition() {
        finish()
        phase = .receiving(bits: 0, byte: 0, address: true)
        sdaReleased = true
    }

    private func stopCondition() {
        finish()
        phase = .idle
        sdaReleased = true
    }

    private func finish() {
        if let c = current { log.append(c) }
        current = nil
    }

    private func rising() {
        switch phase {
        case .receiving(let bits, let byte, let address) where bits < 8:
            phase = .receiving(bits: bits + 1, byte: byte << 1 | (sda ? 1 : 0), address: address)
        case .sending(let bits, let byte):
            phase = .sending(bits: bits + 1, byte: byte)
        case .masterAcknowledge:
            masterAcked = !sda
        default:
            break
        }
    }

    private func falling() {
        switch phase {
        case .receiving(8, let byte, let address):
            let ack = address ? addressByte(byte) : dataByte(byte)
            sdaReleased = !ack
            phase = .acknowledging(then: !ack ? .ignore : (address && isRead ? .send : .receive))
        case .acknowledging(let next):
            sdaReleased = true
            switch next {
            case .receive: phase = .receiving(bits: 0, byte: 0, address: false)
            case .send: send(nextByte())
            case .ignore: phase = .idle
            }
        case .sending(let bits, let byte):
            if bits < 8 {
                sdaReleased = byte & (0x80 >> bits) != 0
            } else {
                sdaReleased = true
                phase = .masterAcknowledge
            }
        case .masterAcknowledge:
            if masterAcked { send(nextByte()) } else { phase = .idle }
        default:
            break
        }
    }

    private func send(_ byte: UInt8) {
        phase = .sending(bits: 0, byte: byte)
        sdaReleased = byte & 0x80 != 0
    }

    private func addressByte(_ byte: UInt8) -> Bool {
        let address = byte >> 1
        isRead = byte & 1 != 0
        let ack = address == chip.address && chip.isPresent
        current = I2CTargetTransaction(address: address, isRead: isRead, acknowledged: ack, bytes: [], chipMicroseconds: chip.nowMicroseconds,
            hostMicroseconds: RealTimeExecutor.monotonicMicroseconds())
        if !isRead { registerSet = false }
        return ack
    }

    private func dataByte(_ byte: UInt8) -> Bool {
        current?.bytes.append(byte)
        guard registerSet else {
            // The first byte of a write sets the register pointer; the chip ACKs any.
            pointer = byte
            registerSet = true
            return true
        }
        do {
            try chip.i2cWrite(address: chip.address, register: pointer, bytes: [byte])
        } catch {
            return false
        }
        pointer &+= 1
        return true
    }

    private func nextByte() -> UInt8 {
        // The model answers every sub-address (past the map: 00; `DRV2605Chip.i2cRead`);
        // a chip gone from the bus mid-read drives nothing, and the pull-up reads 1s.
        let byte = (try? chip.i2cRead(address: chip.address, register: pointer, count: 1).first) ?? 0xFF
        pointer &+= 1
        current?.bytes.append(byte)
        return byte
    }
}
