import DRV2605Model
import MPSSE

/// The FT232H's MPSSE command processor (FTDI AN_108), executing the command stream
/// the host sends on bulk OUT and producing the bytes it answers on bulk IN. Its
/// ADBUS pins drive the I2C lines of a DRV2605 (`I2CTarget`) as `FT232HI2CWiring`
/// wires them: SCL on AD0, SDA on AD1/AD2 with pull-ups, EN on AD4 with a pull-down.
///
/// Time is the MPSSE clock's: every clock cycle a command runs (data bits, the idle
/// clocks of 0x8E/0x8F) moves the chip's virtual time by one period of the clock as
/// the divisor, divide-by-5 and three-phase set it; GPIO writes take no time. So the
/// chip's actuator physics runs on the same clock the host paces its I2C with. Between
/// transfers the chip's own oscillator runs on: `FT232HDevice` gives it the host time
/// that passed beyond what was clocked.
///
/// Answers wait in the chip until a send-immediate (0x87), a full packet's worth, or the
/// latency timer (`FT232HDevice`). A command split across bulk transfers waits for its
/// remaining bytes; an opcode AN_108
/// does not define (or one not modelled: the JTAG TMS commands, the wait-on-I/O ones)
/// is answered 0xFA + opcode, as the chip answers it.
struct MPSSEEngine {
    let target: I2CTarget
    /// How SDA and SCL reach the chip (`FT232HBusWiring`: as documented, or a mistake).
    let wiring: FT232HBusWiring
    private(set) var clock = MPSSEClock()
    private(set) var lowValue: UInt8 = 0
    private(set) var lowDirection: UInt8 = 0
    private(set) var highValue: UInt8 = 0
    private(set) var highDirection: UInt8 = 0
    private(set) var driveZeroLow: UInt8 = 0
    private(set) var loopback = false
    private(set) var adaptive = false
    /// Bytes of a command that has not arrived whole.
    private var pending: [UInt8] = []
    /// Clock time not yet given to the chip (ns below one µs).
    private var carryNanoseconds = 0.0
    /// Counters for the session's summary.
    private(set) var commandsRun = 0
    private(set) var badCommands = 0
    private(set) var clockCycles: UInt64 = 0
    /// A send-immediate (0x87) ran since the device last took the answers: they go to
    /// the host at its next IN token instead of when the latency timer runs out.
    var flushRequested = false

    init(target: I2CTarget, wiring: FT232HBusWiring = .ok) {
        self.target = target
        self.wiring = wiring
        applyPins()
    }

    /// MPSSE mode left (bit mode reset) or entered: pins back to inputs, clock to power-on.
    mutating func reset() {
        clock = MPSSEClock()
        lowValue = 0
        lowDirection = 0
        highValue = 0
        highDirection = 0
        driveZeroLow = 0
        loopback = false
        adaptive = false
        pending = []
        applyPins()
    }

    /// The host's purge of the chip's receive buffer: a partial command is dropped.
    mutating func purge() { pending = [] }

    /// Runs every whole command in `bytes` (after what was pending); returns the answer.
    mutating func execute(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        var answer: [UInt8] = []
        var i = 0
        while i < pending.count {
            guard let n = length(at: i) else { break }  // the rest has not arrived
            let command = Array(pending[i..<(i + n)])
            run(command, &answer)
            commandsRun += 1
            i += n
        }
        pending.removeFirst(i)
        return answer
    }

    // MARK: decoding

    /// Bytes the command at `i` takes, or nil until they have all arrived.
    private func length(at i: Int) -> Int? {
        let op = pending[i]
        let have = pending.count - i
        func need(_ n: Int) -> Int? { have >= n ? n : nil }
        if let shift = Shift(op) {
            if shift.bitMode { return need(shift.writes ? 3 : 2) }
            guard have >= 3 else { return nil }
            let count = (Int(pending[i + 1]) | Int(pending[i + 2]) << 8) + 1
            return need(3 + (shift.writes ? count : 0))
        }
        switch op {
        case MPSSEOpcode.setLowBits, MPSSEOpcode.setHighBits, MPSSEOpcode.setClockDivisor, MPSSEOpcode.clockBytes,
            MPSSEOpcode.driveZeroOnly:
            return need(3)
        case MPSSEOpcode.clockBits: return need(2)
        default: return 1
        }
    }

    /// A data-shifting opcode (0x10...0x3F without TMS), its bits as AN_108 §3.3 names them.
    struct Shift {
        var writeFalling: Bool
        var bitMode: Bool
        var readFalling: Bool
        var lsbFirst: Bool
        var writes: Bool
        var reads: Bool

        init?(_ op: UInt8) {
            guard op & 0xC0 == 0, op & 0x30 != 0 else { return nil }
            writeFalling = op & 0x01 != 0
            bitMode = op & 0x02 != 0
            readFalling = op & 0x04 != 0
            lsbFirst = op & 0x08 != 0
            writes = op & 0x10 != 0
            reads = op & 0x20 != 0
        }
    }

    private mutating func run(_ c: [UInt8], _ answer: inout [UInt8]) {
        let op = c[0]
        if let shift = Shift(op) { return runShift(shift, c, &answer) }
        switch op {
        case MPSSEOpcode.setLowBits:
            lowValue = c[1]
            lowDirection = c[2]
            applyPins()
        case MPSSEOpcode.readLowBits: answer.append(readLow())
        case MPSSEOpcode.setHighBits:
            highValue = c[1]
            highDirection = c[2]
        case MPSSEOpcode.readHighBits: answer.append((highValue & highDirection) | (~highDirection))
        case MPSSEOpcode.loopbackOn: loopback = true
        case MPSSEOpcode.loopbackOff: loopback = false
        case MPSSEOpcode.setClockDivisor: clock.divisor = UInt16(c[1]) | UInt16(c[2]) << 8
        case MPSSEOpcode.sendImmediate: flushRequested = true
        case MPSSEOpcode.disableDivideBy5: clock.divideBy5 = false
        case MPSSEOpcode.enableDivideBy5: clock.divideBy5 = true
        case MPSSEOpcode.enableThreePhase: clock.threePhase = true
        case MPSSEOpcode.disableThreePhase: clock.threePhase = false
        case MPSSEOpcode.enableAdaptiveClocking: adaptive = true
        case MPSSEOpcode.disableAdaptiveClocking: adaptive = false
        case MPSSEOpcode.clockBits: idleClocks(UInt64(c[1]) + 1)
        case MPSSEOpcode.clockBytes: idleClocks(((UInt64(c[1]) | UInt64(c[2]) << 8) + 1) * 8)
        case MPSSEOpcode.driveZeroOnly:
            driveZeroLow = c[1]
            applyPins()
        default:
            badCommands += 1
            answer += [MPSSEOpcode.badCommandEcho, op]
        }
    }

    // MARK: pins and lines

    /// A low-byte pin's driven level: nil when it is an input or a drive-zero pin at 1.
    private func driven(_ bit: UInt8) -> Bool? {
        guard lowDirection & bit != 0 else { return nil }
        let high = lowValue & bit != 0
        if high && driveZeroLow & bit != 0 { return nil }
        return high
    }

    /// The lines as the pins and the pull-ups (SCL, SDA up; EN down) make them; a line
    /// let go is high only where it has a pull-up (`FT232HBusWiring.noPullUps`: none).
    /// AD2 is on SDA only where it is bridged to AD1.
    private var masterSCL: Bool { driven(FT232HI2CWiring.scl) ?? wiring.releasedLevel }
    private var masterSDA: Bool {
        let out = driven(FT232HI2CWiring.sdaOut) ?? wiring.releasedLevel
        guard wiring != .sdaNotBridged else { return out }
        return out && (driven(FT232HI2CWiring.sdaIn) ?? wiring.releasedLevel)
    }

    /// AD2 (TDO) as read: the SDA line, or, with nothing on it (not bridged), its own
    /// level: 1 as an input, as every unconnected input here reads.
    private var sdaInPin: Bool {
        wiring == .sdaNotBridged ? (driven(FT232HI2CWiring.sdaIn) ?? true) : target.sdaLine(masterSDA: masterSDA)
    }

    private func applyPins() {
        let en = driven(FT232HI2CWiring.enable) ?? false
        if en != target.chip.enablePin { target.chip.setEnablePin(en) }
        target.lines(scl: masterSCL, sda: masterSDA)
    }

    /// ADBUS as read back: each pin's line level (outputs read what they drive, as
    /// long as nothing else pulls them).
    private func readLow() -> UInt8 {
        var v: UInt8 = 0
        for bit in 0..<8 {
            let b = UInt8(1) << bit
            let level: Bool
            switch b {
            case FT232HI2CWiring.scl: level = masterSCL
            case FT232HI2CWiring.sdaOut: level = target.sdaLine(masterSDA: masterSDA)
            case FT232HI2CWiring.sdaIn: level = sdaInPin
            case FT232HI2CWiring.enable: level = driven(b) ?? false
            default: level = driven(b) ?? true
            }
            if level { v |= b }
        }
        return v
    }

    // MARK: clocking

    /// One clock period passes: the chip's time moves on.
    private mutating func tick() {
        clockCycles += 1
        carryNanoseconds += clock.nanosecondsPerBit
        if carryNanoseconds >= 1000 {
            let us = (carryNanoseconds / 1000).rounded(.down)
            carryNanoseconds -= us * 1000
            target.chip.advance(microseconds: UInt64(us))
        }
    }

    private mutating func idleClocks(_ cycles: UInt64) {
        let sclDriven = lowDirection & FT232HI2CWiring.scl != 0
        guard sclDriven else {
            // SCL let go: nothing on the bus moves, only time (in one step per µs).
            clockCycles += cycles
            carryNanoseconds += Double(cycles) * clock.nanosecondsPerBit
            let us = (carryNanoseconds / 1000).rounded(.down)
            carryNanoseconds -= us * 1000
            target.chip.advance(microseconds: UInt64(us))
            return
        }
        for _ in 0..<cycles { clockCycle(out: nil, falling: false) }
    }

    /// One TCK cycle from its idle level and back: TDI set to `out` first (when
    /// writing), TDO sampled on the edge the command reads on. Returns the TDO level.
    @discardableResult
    private mutating func clockCycle(out: Bool?, falling readOnFalling: Bool) -> Bool {
        if let out {
            if out { lowValue |= FT232HI2CWiring.sdaOut } else { lowValue &= ~FT232HI2CWiring.sdaOut }
            applyPins()
        }
        let idleHigh = lowValue & FT232HI2CWiring.scl != 0
        var sample = true
        // First edge away from idle, then back; a read on the edge that is a rising one
        // for an idle-low clock (the "+ve" commands).
        lowValue ^= FT232HI2CWiring.scl
        applyPins()
        tick()
        if readOnFalling == idleHigh { sample = tdo }
        lowValue ^= FT232HI2CWiring.scl
        applyPins()
        if readOnFalling != idleHigh { sample = tdo }
        return sample
    }

    /// TDO (AD2): the SDA line (where AD2 is on it), or TDI itself in loopback.
    private var tdo: Bool {
        loopback ? lowValue & FT232HI2CWiring.sdaOut != 0 : sdaInPin
    }

    private mutating func runShift(_ s: Shift, _ c: [UInt8], _ answer: inout [UInt8]) {
        if s.bitMode {
            let count = Int(c[1] & 0x07) + 1
            let out = s.writes ? c[2] : 0
            var got: UInt8 = 0
            for i in 0..<count {
                let bit = s.lsbFirst ? (out >> i) & 1 : (out >> (7 - i)) & 1
                let level = clockCycle(out: s.writes ? bit != 0 : nil, falling: s.readFalling)
                // Bits in arrive at the low end MSB first (shifting left), at the high end LSB first.
                got = s.lsbFirst ? (got >> 1) | (level ? 0x80 : 0) : (got << 1) | (level ? 1 : 0)
            }
            if s.reads { answer.append(got) }
            return
        }
        let count = (Int(c[1]) | Int(c[2]) << 8) + 1
        for k in 0..<count {
            let out = s.writes ? c[3 + k] : 0
            var got: UInt8 = 0
            for i in 0..<8 {
                let bit = s.lsbFirst ? (out >> i) & 1 : (out >> (7 - i)) & 1
                let level = clockCycle(out: s.writes ? bit != 0 : nil, falling: s.readFalling)
                if level { got |= s.lsbFirst ? 1 << i : 0x80 >> i }
            }
            if s.reads { answer.append(got) }
        }
    }
}

extension MPSSEEngine {
    /// SIO_READ_PINS: the ADBUS lines as they are now.
    var pinsForReadPins: UInt8 { lowValue & lowDirection | ~lowDirection }
}
