import DeviceInterface
import LibFTDI
import MPSSE

/// An FT232H in MPSSE mode set up for I2C, driven synchronously: open and set-up, one
/// `MPSSEI2CProgram` per USB transfer with its answer read back and checked (the
/// bad-command probe), EN on AD4. The one implementation of that path: `FT232HI2CBus`
/// (the actor the DRV2605 driver's procedures use) and the hosted firmware core's
/// blocking I2C hooks (HostedBoard) both run their programs through it.
///
/// Not thread-safe by itself: one caller at a time (the actor's isolation, or the
/// hosted core's lock), hence `@unchecked Sendable`, which lets the hosted core's timer
/// and service threads share it under that lock.
public final class FT232HMPSSE: @unchecked Sendable {
    private let ftdi: FTDIContext
    public let sclHz: Double
    public let clock: MPSSEClock
    /// The latency timer as the chip reports it after setting (ms).
    public let latencyMilliseconds: UInt8
    /// The DRV2605's EN level every program carries (AD4).
    public private(set) var enable = true
    /// Longest a transaction's answer may take beyond its own clocking (USB round trip,
    /// the latency timer).
    public static let answerSlackMilliseconds = 1_000
    /// The usbfs node libusb opened it through (`/dev/bus/usb/BBB/DDD`), for a process
    /// that must reach the same FT232H without libftdi (the hosted player's guardian).
    public let usbDevicePath: String?

    /// Opens the FT232H (the first one, or the one with `serial`), resets it, puts it in
    /// MPSSE mode, checks the command stream is in step (the bad-command probe), and
    /// sets up I2C at `sclHz` with EN as `enable` says and the bus idle.
    public init(serial: String? = nil, sclHz: Double = 400_000, enable: Bool = true) throws(FT232HError) {
        self.sclHz = sclHz
        self.enable = enable
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
        usbDevicePath = ftdi.usbDevicePath
        // AN_108 §3.2: a bogus opcode is answered FA + opcode; both probes must come back.
        for probe in [MPSSEOpcode.bogus, MPSSEOpcode.bogus2] {
            let answer: [UInt8]
            do {
                try ftdi.write([probe, MPSSEOpcode.sendImmediate])
                answer = try ftdi.read(exactly: 2, timeoutMilliseconds: Self.answerSlackMilliseconds)
            } catch { throw .ftdi(error) }
            guard answer == [MPSSEOpcode.badCommandEcho, probe] else { throw .outOfSync(answer: answer) }
        }
        do { try ftdi.write(Self.setupCommands(sclHz: sclHz, enable: enable)) } catch { throw .ftdi(error) }
    }

    /// The MPSSE set-up for I2C at `sclHz` (clocking, open drain, the divisor, the high
    /// byte's pins) ending with the bus idle and EN as `enable` says: what an open sends
    /// once the command stream is in step, and what a guardian sends again before it
    /// stops the chip on an FT232H it took over (`FT232HTakeover`).
    public static func setupCommands(sclHz: Double, enable: Bool) -> [UInt8] {
        let clock = MPSSEClock.i2c(sclHz: sclHz)
        var setup: [UInt8] = [
            clock.divideBy5 ? MPSSEOpcode.enableDivideBy5 : MPSSEOpcode.disableDivideBy5,
            MPSSEOpcode.disableAdaptiveClocking,
            clock.threePhase ? MPSSEOpcode.enableThreePhase : MPSSEOpcode.disableThreePhase,
            MPSSEOpcode.driveZeroOnly, FT232HI2CWiring.openDrain, 0x00,
            MPSSEOpcode.loopbackOff,
            MPSSEOpcode.setClockDivisor, UInt8(truncatingIfNeeded: clock.divisor), UInt8(truncatingIfNeeded: clock.divisor >> 8),
            MPSSEOpcode.setHighBits, 0x00, 0x00,
        ]
        var idle = MPSSEI2CProgram(enable: enable, sclHz: sclHz)
        idle.idle()
        setup += idle.commands
        return setup
    }

    /// An empty program carrying this port's EN level and clock.
    public func program() -> MPSSEI2CProgram { MPSSEI2CProgram(enable: enable, sclHz: sclHz) }

    /// Runs one program: its commands and the sync trailer in one transfer, its answer
    /// read back and checked for the trailer (a bad command shows as FA + opcode).
    /// `sent` runs just before the transfer is handed to libftdi (a timing probe's hook).
    public func run(
        _ program: MPSSEI2CProgram, extraMilliseconds: Int = 0, sendImmediate: Bool = true, sent: () -> Void = {}
    ) throws(FT232HError) -> [UInt8] {
        let expected = try send(program, sendImmediate: sendImmediate, sent: sent)
        return try answer(count: expected, extraMilliseconds: extraMilliseconds)
    }

    /// The first half of `run`: the program and the sync trailer handed to the chip in
    /// one transfer, returning once the transfer is taken. The answer's length (the
    /// trailer's two bytes included) is what `answer(count:)` must then read, in the
    /// order the programs were sent.
    ///
    /// `send` and `answer` may run on two threads at once (one each): libftdi's write
    /// path (`ftdi_write_data`: the OUT endpoint, the write chunk size and timeout) and
    /// its read path (`ftdi_read_data`: the read buffer and its offsets, the IN
    /// endpoint) share no state, and libusb's synchronous transfers are thread-safe.
    public func send(_ program: MPSSEI2CProgram, sendImmediate: Bool = true, sent: () -> Void = {}) throws(FT232HError) -> Int {
        var p = program
        p.syncTrailer(sendImmediate: sendImmediate)
        do {
            sent()
            try ftdi.write(p.commands)
        } catch { throw .ftdi(error) }
        return p.answerCount + 2
    }

    /// `send` without the wait: the transfer is submitted and this returns at once; the
    /// answer's length and the submission come back, and `SubmittedProgram.finish()`
    /// (on the thread that takes the answers) waits for the transfer before its
    /// answer is read. For a caller on a deadline: the time a write costs it is one
    /// submission, not the USB transfer.
    public func submit(_ program: MPSSEI2CProgram, sendImmediate: Bool = true, sent: () -> Void = {}) throws(FT232HError) -> SubmittedProgram {
        var p = program
        p.syncTrailer(sendImmediate: sendImmediate)
        do {
            sent()
            return SubmittedProgram(answerCount: p.answerCount + 2, submission: try ftdi.submitWrite(p.commands))
        } catch { throw .ftdi(error) }
    }

    /// The second half of `run`: the next program's answer (`count` bytes, as `send`
    /// said), checked for the sync trailer and returned without it.
    public func answer(count expected: Int, extraMilliseconds: Int = 0) throws(FT232HError) -> [UInt8] {
        let answer: [UInt8]
        do {
            answer = try ftdi.read(exactly: expected, timeoutMilliseconds: Self.answerSlackMilliseconds + extraMilliseconds)
        } catch { throw .ftdi(error) }
        if answer.suffix(2) == [MPSSEOpcode.badCommandEcho, MPSSEOpcode.bogus2] { return Array(answer.prefix(expected - 2)) }
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

    /// Runs a program of I2C transactions and checks its ACK bits: the data bytes read,
    /// or the first NACK as the driver's typed error.
    public func transact(_ program: MPSSEI2CProgram, sent: () -> Void = {}) throws(I2CTransactionError) -> [UInt8] {
        let answer: [UInt8]
        do { answer = try run(program, sent: sent) } catch { throw .adapter(error) }
        do { return try program.interpret(answer) } catch { throw .bus(error) }
    }

    /// Drives the DRV2605's EN pin (AD4): low puts the chip in shutdown, whatever its registers say.
    public func setEnable(_ high: Bool) throws(FT232HError) {
        enable = high
        var p = program()
        p.idle()
        _ = try run(p)
    }

    /// Closes the FT232H, leaving it in MPSSE mode with the pins as the last program set
    /// them (EN low, after `setEnable(false)`). Not a bit-mode reset: that returns ADBUS
    /// to its UART functions, where AD4 is DTR#, an output driven high while DTR is
    /// clear, which would raise EN (Hardware/boards/ft232h.md, "When the host goes away").
    public func close() {
        try? ftdi.close()
    }
}

/// A transaction that failed: the adapter (USB, libftdi, the command stream), or the
/// bus itself (a NACK, in the driver's terms).
public enum I2CTransactionError: Error, Sendable {
    case adapter(FT232HError)
    case bus(I2CError)
}

/// A program submitted without waiting (`FT232HMPSSE.submit`): its answer's length, and
/// its USB transfer, which `finish()` waits for and frees.
public struct SubmittedProgram: Sendable {
    public let answerCount: Int
    let submission: FTDIWriteSubmission

    public func finish() throws(FT232HError) {
        do { try submission.finish() } catch { throw .ftdi(error) }
    }
}
