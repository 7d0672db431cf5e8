import FTDIBridge
import FirmwareCore
import MPSSE

/// A hosted core's I2C on an FT232H's MPSSE pins: each hook call is one
/// `MPSSEI2CProgram` in one USB transfer through `FT232HMPSSE` (the path
/// `FT232HI2CBus` uses), ACK bits checked.
public final class FT232HHostedI2C: HostedI2CPort, @unchecked Sendable {
    // @unchecked: the port is used by one caller at a time (the core's lock).
    public let port: FT232HMPSSE
    public let serial: String?

    /// Opens the FT232H (`serial` nil: the first) with the DRV2605's EN high.
    public init(serial: String?, sclHz: Double = 400_000) throws(FT232HError) {
        port = try FT232HMPSSE(serial: serial, sclHz: sclHz)
        self.serial = serial
    }

    public var summary: String { "MPSSE I2C at \(Int(port.sclHz / 1000)) kHz" }

    /// The last STATUS read in a write's transfer: when, and the fault bits seen since
    /// the core last took one (they clear on read, so none may be lost between).
    private var status: (value: UInt8, atNanoseconds: UInt64)?
    private var faultsSinceTaken: UInt8 = 0

    /// A write to the DRV2605 reads its STATUS back in the same transfer: ~100 µs more
    /// on the wire at 400 kHz, no second USB round trip, and the core's fault poll
    /// answered from it (`recentStatus`) never needs a transaction of its own, which on
    /// a dense stream no gap between writes would hold.
    public func write(address: UInt8, bytes: [UInt8], sent: () -> Void) -> HostedI2CResult {
        var p = port.program()
        p.write(address: address, register: bytes.first ?? 0, bytes: Array(bytes.dropFirst()))
        let chip = UInt8(DRV2605_I2C_ADDR)
        if address == chip { p.read(address: chip, register: UInt8(DRV2605_REG_STATUS), count: 1) }
        return result { () throws(I2CTransactionError) in
            let read = try port.transact(p, sent: sent)
            if address == chip, let value = read.first { note(status: value) }
        }
    }

    public func recentStatus(maxAgeMicroseconds: UInt32) -> UInt8? {
        guard let status, HostedClock.nanoseconds() &- status.atNanoseconds <= UInt64(maxAgeMicroseconds) * 1000 else { return nil }
        defer { faultsSinceTaken = 0 }
        return status.value | faultsSinceTaken
    }

    private func note(status value: UInt8) {
        status = (value, HostedClock.nanoseconds())
        faultsSinceTaken |= value & UInt8(DRV2605_STATUS_OVER_TEMP | DRV2605_STATUS_OC_DETECT)
    }

    public func read(address: UInt8, register: UInt8, count: Int) -> (HostedI2CResult, [UInt8]) {
        var p = port.program()
        p.read(address: address, register: register, count: count)
        var data: [UInt8] = []
        let r = result { () throws(I2CTransactionError) in data = try port.transact(p) }
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

    /// RTP amplitude 0 and STANDBY in one transfer, then EN low, then closed with EN
    /// left driven low. Each step is tried even when one before it failed.
    public func shutDown() {
        var p = port.program()
        let chip = UInt8(DRV2605_I2C_ADDR)
        p.write(address: chip, register: UInt8(DRV2605_REG_RTP_INPUT), bytes: [0])
        p.write(address: chip, register: UInt8(DRV2605_REG_MODE), bytes: [UInt8(DRV2605_MODE_STANDBY)])
        _ = try? port.transact(p)
        try? port.setEnable(false)
        port.close()
    }
}
