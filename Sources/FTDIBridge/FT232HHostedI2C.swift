import HostedBoard
import FirmwareCore
import MPSSE

/// A hosted core's I2C on an FT232H's MPSSE pins: each hook call is one
/// `MPSSEI2CProgram` in one USB transfer through `FT232HMPSSE` (the path
/// `FT232HI2CBus` uses), ACK bits checked.
///
/// Until the board's threads start, every call waits for its answer. From then on
/// (`start(priority:)`) a write returns once its transfer is submitted, and an
/// `FT232HAnswerReader` waits for the transfers and takes the answers: a write's NACK
/// is reported at the port's next call, one transaction late. Reads still wait for
/// their bytes.
public final class FT232HHostedI2C: HostedI2CPort, @unchecked Sendable {
    // @unchecked: the port is used by one caller at a time (the core's lock); the
    // reader's state is behind its own lock.
    public let port: FT232HMPSSE
    public let serial: String?
    private let answers: FT232HAnswerReader

    /// Opens the FT232H (`serial` nil: the first) with the DRV2605's EN high.
    public init(serial: String?, sclHz: Double = 400_000) throws(FT232HError) {
        port = try FT232HMPSSE(serial: serial, sclHz: sclHz)
        self.serial = serial
        answers = FT232HAnswerReader(port: port)
    }

    public var summary: String { "MPSSE I2C at \(Int(port.sclHz / 1000)) kHz" }

    /// The usbfs node the FT232H was opened through (what its guardian takes it by).
    public var usbDevicePath: String? { port.usbDevicePath }

    /// The most answers the reader had outstanding at once (how far behind it ran).
    public var deepestAnswerBacklog: Int { answers.deepestBacklog }

    public func start(priority: Int32?) { answers.start(priority: priority) }

    /// A write to the DRV2605 reads its STATUS back in the same transfer: ~100 µs more
    /// on the wire at 400 kHz, no second USB round trip, and the core's fault poll
    /// answered from it (`recentStatus`) never needs a transaction of its own, which on
    /// a dense stream no gap between writes would hold.
    public func write(address: UInt8, bytes: [UInt8], sent: () -> Void) -> HostedI2CResult {
        if let earlier = answers.takeFailure() { return earlier }
        var p = port.program()
        p.write(address: address, register: bytes.first ?? 0, bytes: Array(bytes.dropFirst()))
        let chip = UInt8(DRV2605_I2C_ADDR)
        let readsStatus = address == chip
        if readsStatus { p.read(address: chip, register: UInt8(DRV2605_REG_STATUS), count: 1) }
        guard answers.isRunning else {
            return result { () throws(I2CTransactionError) in
                var at: UInt64 = 0
                let read = try port.transact(p) { at = HostedClock.nanoseconds(); sent() }
                if readsStatus, let value = read.first { answers.noteStatus(value, atNanoseconds: at) }
            }
        }
        var at: UInt64 = 0
        do {
            let submitted = try port.submit(p) { at = HostedClock.nanoseconds(); sent() }
            answers.expect(p, submitted: submitted, readsStatus: readsStatus, sentNanoseconds: at)
            return .acknowledged
        } catch {
            answers.adapterFailed(error.description)
            return .adapterFailure(error.description)
        }
    }

    public func recentStatus(maxAgeMicroseconds: UInt32) -> UInt8? {
        answers.recentStatus(maxAgeMicroseconds: maxAgeMicroseconds)
    }

    public func read(address: UInt8, register: UInt8, count: Int) -> (HostedI2CResult, [UInt8]) {
        if let earlier = answers.takeFailure() { return (earlier, []) }
        var p = port.program()
        p.read(address: address, register: register, count: count)
        var data: [UInt8] = []
        guard answers.isRunning else {
            let r = result { () throws(I2CTransactionError) in data = try port.transact(p) }
            return (r, data)
        }
        let id: UInt64
        do {
            id = answers.expect(p, submitted: try port.submit(p), isRead: true)
        } catch {
            answers.adapterFailed(error.description)
            return (.adapterFailure(error.description), [])
        }
        guard let answer = answers.awaitRead(id) else {
            return (answers.takeFailure() ?? .adapterFailure("the FT232H's answer did not come"), [])
        }
        // An earlier write's NACK, known now that every answer before this one is in.
        if let earlier = answers.takeFailure() { return (earlier, []) }
        let r = result { () throws(I2CTransactionError) in data = try answer.get() }
        return (r, data)
    }

    private func result(_ body: () throws(I2CTransactionError) -> Void) -> HostedI2CResult {
        do {
            try body()
            return .acknowledged
        } catch {
            switch error {
            case .adapter(let e): return .adapterFailure(e.description)
            case .bus: return .notAcknowledged
            }
        }
    }

    /// The answers still outstanding taken, then RTP amplitude 0 and STANDBY in one
    /// transfer, EN low, and closed with EN left driven low. Each step is tried even
    /// when one before it failed.
    /// The FT232H's wiring checks (`MPSSEI2CProgram.noAcknowledgeAdvice`).
    public var noAcknowledgeAdvice: String? { MPSSEI2CProgram.noAcknowledgeAdvice }

    public func shutDown() {
        answers.finish()
        var p = port.program()
        let chip = UInt8(DRV2605_I2C_ADDR)
        p.write(address: chip, register: UInt8(DRV2605_REG_RTP_INPUT), bytes: [0])
        p.write(address: chip, register: UInt8(DRV2605_REG_MODE), bytes: [UInt8(DRV2605_MODE_STANDBY)])
        _ = try? port.transact(p)
        try? port.setEnable(false)
        port.close()
    }
}
