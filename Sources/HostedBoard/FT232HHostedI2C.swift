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

    public func write(address: UInt8, bytes: [UInt8], sent: () -> Void) -> HostedI2CResult {
        var p = port.program()
        p.write(address: address, register: bytes.first ?? 0, bytes: Array(bytes.dropFirst()))
        return result { () throws(I2CTransactionError) in _ = try port.transact(p, sent: sent) }
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
