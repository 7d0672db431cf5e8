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
/// The USB side is `FT232HMPSSE`'s, which the hosted firmware core shares.
///
/// EN (AD4) is driven high while the bus is open; `close` drives it low and leaves it
/// driven low (Hardware/boards/ft232h.md: with the pull-down, an unplugged FT232H
/// leaves it low too).
public actor FT232HI2CBus: I2CBus {
    private let port: FT232HMPSSE
    public nonisolated let sclHz: Double
    public nonisolated let clock: MPSSEClock
    /// The latency timer as the chip reports it after setting (ms).
    public nonisolated let latencyMilliseconds: UInt8
    public var enable: Bool { port.enable }
    /// Asked before every transaction and wait: a reason (a signal came) ends the
    /// procedure with `.cancelled` instead of the next bus access.
    private var interruption: (@Sendable () -> String?)?

    /// Opens the FT232H (the first one, or the one with `serial`), resets it, puts it in
    /// MPSSE mode, checks the command stream is in step (the bad-command probe), and
    /// sets up I2C at `sclHz` with EN high and the bus idle.
    public init(serial: String? = nil, sclHz: Double = 400_000) throws(FT232HError) {
        port = try FT232HMPSSE(serial: serial, sclHz: sclHz)
        self.sclHz = sclHz
        clock = port.clock
        latencyMilliseconds = port.latencyMilliseconds
    }

    /// Runs one program: its commands and the sync trailer in one transfer, its answer
    /// read back and checked for the trailer (a bad command shows as FA + opcode).
    public func run(_ program: MPSSEI2CProgram, extraMilliseconds: Int = 0, sendImmediate: Bool = true) throws(FT232HError) -> [UInt8] {
        try port.run(program, extraMilliseconds: extraMilliseconds, sendImmediate: sendImmediate)
    }

    /// Raw MPSSE commands (for tests and diagnostics): sent with the sync trailer,
    /// `answerCount` bytes expected back; without `sendImmediate` the FT232H holds the
    /// answer until its latency timer runs out.
    public func exchange(_ commands: [UInt8], answerCount: Int, sendImmediate: Bool = true) throws(FT232HError) -> [UInt8] {
        var p = port.program()
        p.raw(commands, answers: answerCount)
        return try run(p, sendImmediate: sendImmediate)
    }

    public func setInterruption(_ check: (@Sendable () -> String?)?) { interruption = check }

    private func transact(_ program: MPSSEI2CProgram) throws(I2CError) -> [UInt8] {
        if interruption?() != nil { throw .cancelled }
        do { return try port.transact(program) } catch {
            switch error {
            case .adapter(let e): throw .adapterFailure(e.description)
            case .bus(let e): throw e
            }
        }
    }

    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        var p = port.program()
        p.write(address: address, register: register, bytes: bytes)
        _ = try transact(p)
    }

    /// Several register writes, each its own START...STOP, in one USB transfer; the
    /// first NACK names its register.
    public func write(address: UInt8, batch: [(register: UInt8, bytes: [UInt8])]) throws(I2CError) {
        var p = port.program()
        for w in batch { p.write(address: address, register: w.register, bytes: w.bytes) }
        _ = try transact(p)
    }

    public func read(address: UInt8, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        var p = port.program()
        p.read(address: address, register: register, count: count)
        return try transact(p)
    }

    public func wait(microseconds: UInt64) throws(I2CError) {
        guard !Task.isCancelled, interruption?() == nil else { throw .cancelled }
        guard microseconds > 0 else { return }
        var p = port.program()
        // Idle clocks run at the plain TCK rate (three-phase off).
        var plain = clock
        plain.threePhase = false
        let cycles = UInt64((Double(microseconds) * plain.tckHz / 1e6).rounded(.up))
        p.idleClocks(cycles)
        do { _ = try run(p, extraMilliseconds: Int(microseconds / 1000)) } catch { throw .adapterFailure(error.description) }
    }

    /// Drives the DRV2605's EN pin (AD4): low puts the chip in shutdown, whatever its registers say.
    public func setEnable(_ high: Bool) throws(FT232HError) { try port.setEnable(high) }

    /// EN low, and the FT232H closed with EN left driven low (`FT232HMPSSE.close`).
    public func close() {
        try? port.setEnable(false)
        port.close()
    }
}
