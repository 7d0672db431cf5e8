import DeviceInterface
import MPSSE

/// I2C transactions as one MPSSE command stream (FTDI AN_113 and AN_255), and what its
/// answer means. Pure: building and interpreting, no I/O, so several transactions go
/// to the FT232H in one USB transfer and come back in one read.
///
/// The pins are `FT232HI2CWiring`'s. SDA and SCL are open drain (drive-zero-only): a 1
/// floats and the pull-ups make it high, so the chip can pull SDA low for its ACK and
/// data while the FT232H's SDA output says 1.
///
/// - START / STOP: GPIO writes (0x80), each level held for `holdRepeats` writes (AN_255
///   repeats each four times at 400 kHz; the repeats scale with the bit time).
/// - A byte out: clocked out on SCL's falling edge MSB first (0x11), then SDA made an
///   input and one bit clocked in on the rising edge (0x22): the chip's ACK, 0, in the
///   answer byte's bit 0.
/// - A byte in: SDA an input, eight bits clocked in on the rising edge (0x20), then the
///   master's ACK (0) or NACK (1, after the last byte) clocked out (0x13).
public struct MPSSEI2CProgram: Sendable {
    public private(set) var commands: [UInt8] = []
    /// What each answer byte is, in order.
    public private(set) var answers: [Answer] = []
    /// The DRV2605's EN level the pins carry (AD4).
    public var enable: Bool
    public let holdRepeats: Int
    private var sclHigh = true

    public enum Answer: Sendable, Equatable {
        /// The ACK bit after a byte out: the address byte (`register` nil) or a register/data byte.
        case acknowledge(address: UInt8, register: UInt8?)
        /// A data byte read from the chip.
        case data
    }

    public init(enable: Bool = true, sclHz: Double = 400_000) {
        self.enable = enable
        holdRepeats = max(4, Int((4 * 400_000 / sclHz).rounded()))
    }

    // MARK: pins

    /// One GPIO write of the low byte: SCL and SDA levels (1 = released), SDA's direction.
    mutating func pins(scl: Bool, sda: Bool, sdaDriven: Bool = true, sclDriven: Bool = true, repeats: Int = 1) {
        let w = FT232HI2CWiring.self
        let value = (scl ? w.scl : 0) | (sda ? w.sdaOut : 0) | (enable ? w.enable : 0)
        let direction = (sclDriven ? w.scl : 0) | (sdaDriven ? w.sdaOut : 0) | w.enable
        for _ in 0..<repeats { commands += [MPSSEOpcode.setLowBits, value, direction] }
        sclHigh = scl
    }

    /// The bus idle (both lines released), EN as `enable` says.
    public mutating func idle() { pins(scl: true, sda: true) }

    public mutating func start() {
        if !sclHigh { pins(scl: false, sda: true) }
        pins(scl: true, sda: true, repeats: holdRepeats)
        pins(scl: true, sda: false, repeats: holdRepeats)
        pins(scl: false, sda: false)
    }

    public mutating func stop() {
        pins(scl: false, sda: false, repeats: holdRepeats)
        pins(scl: true, sda: false, repeats: holdRepeats)
        pins(scl: true, sda: true, repeats: holdRepeats)
    }

    /// A byte out and its ACK bit read back (checked by `interpret`).
    mutating func writeByte(_ byte: UInt8, _ check: Answer) {
        commands += [MPSSEOpcode.bytesOutFallingMSB, 0x00, 0x00, byte]
        pins(scl: false, sda: true, sdaDriven: false)
        commands += [MPSSEOpcode.bitsInRisingMSB, 0x00]
        answers.append(check)
        pins(scl: false, sda: true)
    }

    /// A byte in, then the master's ACK (more to come) or NACK (the last one).
    mutating func readByte(acknowledge: Bool) {
        pins(scl: false, sda: true, sdaDriven: false)
        commands += [MPSSEOpcode.bytesInRisingMSB, 0x00, 0x00]
        answers.append(.data)
        pins(scl: false, sda: true)
        commands += [MPSSEOpcode.bitsOutFallingMSB, 0x00, acknowledge ? 0x00 : 0xFF]
        pins(scl: false, sda: true)
    }

    // MARK: transactions

    /// START, address+W, register, bytes..., STOP.
    public mutating func write(address: UInt8, register: UInt8, bytes: [UInt8]) {
        start()
        writeByte(address << 1, .acknowledge(address: address, register: nil))
        writeByte(register, .acknowledge(address: address, register: register))
        for (i, b) in bytes.enumerated() {
            writeByte(b, .acknowledge(address: address, register: register &+ UInt8(truncatingIfNeeded: i)))
        }
        stop()
    }

    /// START, address+W, register, repeated START, address+R, `count` bytes, STOP.
    public mutating func read(address: UInt8, register: UInt8, count: Int) {
        start()
        writeByte(address << 1, .acknowledge(address: address, register: nil))
        writeByte(register, .acknowledge(address: address, register: register))
        start()
        writeByte(address << 1 | 1, .acknowledge(address: address, register: nil))
        for i in 0..<count { readByte(acknowledge: i < count - 1) }
        stop()
    }

    /// `cycles` of the MPSSE clock with SCL let go (an input), so the bus sees no clock:
    /// a wait timed by the FT232H itself. `clock` is the I2C clock; the idle cycles run
    /// with three-phase off, at the plain TCK rate, and it is switched back on after.
    public mutating func idleClocks(_ cycles: UInt64) {
        pins(scl: true, sda: true, sclDriven: false)
        commands.append(MPSSEOpcode.disableThreePhase)
        var left = cycles
        // 0x8F clocks (n + 1) × 8 cycles, n up to 0xFFFF; 0x8E the remaining 1...8.
        while left >= 8 {
            let n = min(left / 8, 0x10000)
            commands += [MPSSEOpcode.clockBytes, UInt8(truncatingIfNeeded: n - 1), UInt8(truncatingIfNeeded: (n - 1) >> 8)]
            left -= n * 8
        }
        if left > 0 { commands += [MPSSEOpcode.clockBits, UInt8(left - 1)] }
        commands.append(MPSSEOpcode.enableThreePhase)
        idle()
    }

    /// Ends the stream with the bad-command probe (AN_108 §3.2): the FT232H answers
    /// 0xFA 0xAB after everything else, so a short or misaligned answer shows.
    /// Without `sendImmediate` the answer waits in the FT232H for its latency timer.
    public mutating func syncTrailer(sendImmediate: Bool = true) {
        commands += [MPSSEOpcode.bogus2] + (sendImmediate ? [MPSSEOpcode.sendImmediate] : [])
    }

    /// Commands given as they are, answering `answers` data bytes (tests, diagnostics).
    public mutating func raw(_ bytes: [UInt8], answers count: Int) {
        commands += bytes
        answers += Array(repeating: .data, count: count)
    }

    /// Bytes the FT232H answers for the stream (the trailer's two not counted).
    public var answerCount: Int { answers.count }

    /// What an address NACK on an FT232H asks the user to check, most likely first: the
    /// two wiring mistakes it cannot tell from an absent chip (Hardware/boards/ft232h.md,
    /// "When diagnose fails"). With D2 not on SDA every ACK bit reads 1, so a chip that
    /// answered is a NACK here.
    public static let noAcknowledgeAdvice =
        "is SDA on both D1 and D2, bridged or by the FT232H's I2C switch? is the chip powered, VIN and GND? SCL on D0? pull-ups on SDA and SCL?"

    /// The data bytes read, in order; the first NACK as the driver's typed error.
    public func interpret(_ answer: [UInt8]) throws(I2CError) -> [UInt8] {
        var data: [UInt8] = []
        for (kind, byte) in zip(answers, answer) {
            switch kind {
            case .data: data.append(byte)
            case .acknowledge(let address, let register):
                guard byte & 0x01 == 0 else {
                    if let register { throw .dataNotAcknowledged(address: address, register: register) }
                    throw .addressNotAcknowledged(address: address, advice: Self.noAcknowledgeAdvice)
                }
            }
        }
        return data
    }
}
