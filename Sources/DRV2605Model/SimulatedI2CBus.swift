import DeviceInterface
import DRV2605

/// An `I2CBus` whose only device is a simulated chip. Each transaction advances
/// the chip's virtual time by what it would take on the wire; `wait` advances it
/// by the requested time. Nothing sleeps.
///
/// A class (reference to the chip), not `Sendable`: owned by the task that owns
/// the chip.
public final class SimulatedI2CBus: I2CBus {
    public let chip: DRV2605Chip
    /// SCL rate for transaction timing; nil makes transactions take no time.
    public var clockHz: Double?
    public private(set) var transactions = 0

    public init(chip: DRV2605Chip, clockHz: Double? = 400_000) {
        self.chip = chip
        self.clockHz = clockHz
    }

    /// START + 9 clocks per byte (8 data + ACK) + STOP; a read adds a repeated START
    /// and the address byte again.
    func spend(bytes: Int, isRead: Bool) {
        transactions += 1
        guard let clockHz else { return }
        let clocks = 9 * (bytes + 2 + (isRead ? 1 : 0)) + 2
        chip.advance(microseconds: UInt64((Double(clocks) / clockHz * 1e6).rounded()))
    }

    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {
        spend(bytes: bytes.count, isRead: false)
        try chip.i2cWrite(address: address, register: register, bytes: bytes)
    }

    public func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] {
        spend(bytes: count, isRead: true)
        return try chip.i2cRead(address: address, register: register, count: count)
    }

    public func wait(microseconds: UInt64) async throws(I2CError) {
        chip.advance(microseconds: microseconds)
    }
}
