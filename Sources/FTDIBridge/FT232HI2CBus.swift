import DeviceInterface
import LibFTDI
import MPSSE

/// The DRV2605's I2C bus straight from an FT232H in MPSSE mode (no bridge board): an
/// `I2CBus`, so the DRV2605 driver runs on it unchanged. Each transaction is one
/// `MPSSEI2CProgram` sent in one USB transfer and answered in one read, its ACK bits
/// checked (a NACK is the driver's `I2CError`); `write(address:batch:)` puts several
/// register writes in one transfer. `wait` is timed by the FT232H's own clock (idle
/// MPSSE clocks with SCL let go, then a read that can only come back once they ran),
/// so it holds on hardware and in the emulation alike, where it is virtual time.
///
/// EN (AD4) is driven high while the bus is open; `close` drives it low, and with the
/// pull-down `FT232HI2CWiring` describes, an unplugged FT232H leaves it low.
public actor FT232HI2CBus: I2CBus {
    private let ftdi: FTDIContext
    public nonisolated let sclHz: Double
    public nonisolated let clock: MPSSEClock
    /// The latency timer as the chip reports it after setting (ms).
    public nonisolated let latencyMilliseconds: UInt8
    public private(set) var enable = true
    /// Asked before every transaction and wait: a reason (a signal came) ends the
    /// procedure with `.cancelled` instead of the next bus access.
    private var interruption: (@Sendable () -> String?)?
    /// Longest a transaction's answer may take beyond its own clocking (USB round trip,
    /// the latency timer).
    static let answerSlackMilliseconds = 1_000

    /// Opens the FT232H (the first one, or the one with `serial`), resets it, puts it in
    /// MPSSE mode, checks the command stream is in step (the bad-command probe), and
    /// sets up I2C at `sclHz` with EN high and the bus idle.
    public init(serial: String? = nil, sclHz: Double = 400_000) throws(FT232HError) {
        self.sclHz = sclHz
        clock = MPSSEClock.i2c(sclHz: sclHz)
        do {
            ftdi = try FTDIContext()
            try ftdi.open(vendor: FT232HIdentity.vendorID, product: FT232HIdentity.productID, serial: serial)
            try ftdi.reset()
            try ftdi.setChunkSizes(write: 65_536, read: 65_536)
            try ftdi.purge()
            // 1 ms: an answer shorter than a packet waits this long in the chip (16 ms by default).
            try ftdi.setLatencyTimer(milliseconds: 1)
            latencyMilliseconds = try ftdi.latencyTimer()
            try ftdi.setBitMode(.reset)
            try ftdi.setBitMode(.mpsse)
        } catch { throw .ftdi(error) }
        // AN_108 §3.2: a bogus opcode is answered FA + opcode; both probes must come back.
        for probe in [MPSSEOpcode.bogus, MPSSEOpcode.bogus2] {
            let answer: [UInt8]
            do {
                try ftdi.write([probe, MPSSEOpcode.sendImmediate])
                answer = try ftdi.read(exactly: 2, timeoutMilliseconds: Self.answerSlackMilliseconds)
            } catch { throw .ftdi(error) }
            guard answer == [MPSSEOpcode.badCommandEcho, probe] else { throw .outOfSync(answer: answer) }
        }
        var setup: [UInt8] = [
            clock.divideBy5 ? MPSSEOpcode.enableDivideBy5 : MPSSEOpcode.disableDivideBy5,
            MPSSEOpcode.disableAdaptiveClocking,
            clock.threePhase ? MPSSEOpcode.enableThreePhase : MPSSEOpcode.disableThreePhase,
            MPSSEOpcode.driveZeroOnly, FT232HI2CWiring.openDrain, 0x00,
            MPSSEOpcode.loopbackOff,
            MPSSEOpcode.setClockDivisor, UInt8(truncatingIfNeeded: clock.divisor), UInt8(truncatingIfNeeded: clock.divisor >> 8),
            MPSSEOpcode.setHighBits, 0x00, 0x00,
        ]
        var idle = MPSSEI2CProgram(enable: true, sclHz: sclHz)
        idle.idle()
        setup += idle.commands
        do { try ftdi.write(setup) } catch { throw .ftdi(error) }
    }

    /// Runs one program: its commands and the sync trailer in one transfer, its answer
    /// read back and checked for the trailer (a bad command shows as FA + opcode).
    public func run(_ program: MPSSEI2CProgram, extraMilliseconds: Int = 0, sendImmediate: Bool = true) throws(FT232HError) -> [UInt8] {
        var p = program
        p.syncTrailer(sendImmediate: sendImmediate)
        let expected = p.answerCount + 2
        let answer: [UInt8]
        do {
            try ftdi.write(p.commands)
            answer = try ftdi.read(exactly: expected, timeoutMilliseconds: Self.answerSlackMilliseconds + extraMilliseconds)
        } catch { throw .ftdi(error) }
        if answer.suffix(2) == [MPSSEOpcode.badCommandEcho, MPSSEOpcode.bogus2] { return Array(answer.prefix(p.answerCount)) }
        // Out of step: the rest of the answer (what came after the expected count) says why.
        let rest = (try? ftdi.read(exactly: 2, timeoutMilliseconds: 50)) ?? []
        let all = answer + rest
        // Whatever else is still in the chip's buffers would shift the next answer.
        try? ftdi.purge()
        for i in all.indices.dropLast() where all[i] == MPSSEOpcode.badCommandEcho && all[i + 1] != MPSSEOpcode.bogus2 {
            throw .badCommand(opcode: all[i + 1])
        }
        throw .outOfSync(answer: all)
    }

    /// Raw MPSSE commands (for tests and diagnostics): sent with the sync trailer,
    /// `answerCount` bytes expected back; without `sendImmediate` the FT232H holds the
    /// answer until its latency timer runs out.
    public func exchange(_ commands: [UInt8], answerCount: Int, sendImmediate: Bool = true) throws(FT232HError) -> [UInt8] {
        var p = MPSSEI2CProgram(enable: enable, sclHz: sclHz)
        p.raw(commands, answers: answerCount)
        return try run(p, sendImmediate: sendImmediate)
    }

    public func setInterruption(_ check: (@Sendable () -> String?)?) { interruption = check }

    private func transact(_ program: MPSSEI2CProgram) throws(I2CError) -> [UInt8] {
        if interruption?() != nil { throw .cancelled }
        let answer: [UInt8]
        do { answer = try run(program) } catch { throw .adapterFailure(error.description) }
        return try program.interpret(answer)
    }

    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        var p = MPSSEI2CProgram(enable: enable, sclHz: sclHz)
        p.write(address: address, register: register, bytes: bytes)
        _ = try transact(p)
    }

    /// Several register writes, each its own START...STOP, in one USB transfer; the
    /// first NACK names its register.
    public func write(address: UInt8, batch: [(register: UInt8, bytes: [UInt8])]) throws(I2CError) {
        var p = MPSSEI2CProgram(enable: enable, sclHz: sclHz)
        for w in batch { p.write(address: address, register: w.register, bytes: w.bytes) }
        _ = try transact(p)
    }

    public func read(address: UInt8, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        var p = MPSSEI2CProgram(enable: enable, sclHz: sclHz)
        p.read(address: address, register: register, count: count)
        return try transact(p)
    }

    public func wait(microseconds: UInt64) throws(I2CError) {
        guard !Task.isCancelled, interruption?() == nil else { throw .cancelled }
        guard microseconds > 0 else { return }
        var p = MPSSEI2CProgram(enable: enable, sclHz: sclHz)
        // Idle clocks run at the plain TCK rate (three-phase off).
        var plain = clock
        plain.threePhase = false
        let cycles = UInt64((Double(microseconds) * plain.tckHz / 1e6).rounded(.up))
        p.idleClocks(cycles)
        do { _ = try run(p, extraMilliseconds: Int(microseconds / 1000)) } catch { throw .adapterFailure(error.description) }
    }

    /// Drives the DRV2605's EN pin (AD4): low puts the chip in shutdown, whatever its registers say.
    public func setEnable(_ high: Bool) throws(FT232HError) {
        enable = high
        var p = MPSSEI2CProgram(enable: high, sclHz: sclHz)
        p.idle()
        _ = try run(p)
    }

    /// EN low, then the FT232H back out of MPSSE mode (every pin an input) and closed.
    public func close() {
        try? setEnable(false)
        try? ftdi.setBitMode(.reset)
        try? ftdi.close()
    }
}
