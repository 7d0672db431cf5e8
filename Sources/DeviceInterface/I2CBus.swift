/// A device's I2C master, as a driver (the DRV2605's, an accelerometer's) uses it:
/// register reads and writes with the chip's auto-increment, and a clock to wait on.
/// A capability of the device seam: the bridge board offers it through protocol 1.1's
/// untimed register frames (a hosted adapter's core too), the chip model directly.
///
/// The clock is part of the bus on purpose: on hardware (a board, an adapter)
/// `wait` sleeps; on the chip model it advances virtual time. So the driver polls
/// GO and DEV_RESET the same way everywhere and tests never sleep.
///
/// Implementations are reference types or actors (the driver holds the bus by value
/// and never mutates it). The protocol does not require `Sendable`: a simulated bus
/// is owned by one task; a hardware bus can be an actor and is then `Sendable`.
public protocol I2CBus {
    /// Writes `bytes` to consecutive registers starting at `register`
    /// (START, address+W, register, data..., STOP).
    func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError)
    /// Reads `count` consecutive registers starting at `register`
    /// (START, address+W, register, repeated START, address+R, data..., STOP).
    func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8]
    /// Waits `microseconds` of device time.
    func wait(microseconds: UInt64) async throws(I2CError)
}

/// A failed bus transaction.
public enum I2CError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nobody acknowledged the address byte: chip absent, unpowered, wrong address (a
    /// DRV2605 with EN low still acknowledges). `advice`: what to check on the adapter
    /// that saw it, where its wiring has mistakes of its own (the FT232H's SDA on two
    /// pins); nil for the general checks.
    case addressNotAcknowledged(address: UInt8, advice: String? = nil)
    /// The chip acknowledged its address but not a data byte.
    case dataNotAcknowledged(address: UInt8, register: UInt8)
    /// The adapter itself failed (USB gone, arbitration lost, ...).
    case adapterFailure(String)
    /// A wait was cancelled (the task was cancelled while sleeping).
    case cancelled

    public var description: String {
        switch self {
        case .addressNotAcknowledged(let a, let advice):
            return "no ACK from I2C address 0x\(hex(a)) (\(advice ?? "chip absent, unpowered, or SDA/SCL miswired?"))"
        case .dataNotAcknowledged(let a, let r):
            return "I2C device 0x\(hex(a)) did not acknowledge data for register 0x\(hex(r))"
        case .adapterFailure(let why): return "I2C adapter failure: \(why)"
        case .cancelled: return "wait cancelled"
        }
    }
}

private func hex(_ v: UInt8) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

public extension I2CBus {
    func readByte(address: UInt8, register: UInt8) async throws(I2CError) -> UInt8 {
        let bytes = try await read(address: address, register: register, count: 1)
        guard let first = bytes.first else { throw .dataNotAcknowledged(address: address, register: register) }
        return first
    }
}
