import Hex

/// One bus transaction the firmware made, as a logic analyser on SDA/SCL would
/// record it. Transactions take no virtual time on the simulated bus (see README:
/// a real 400 kHz register write takes ~70 µs; the board's clock does not run
/// during a hook), so `time` is when the firmware started it.
public struct I2CTransaction: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case write, read }

    /// Virtual µs since power-up, and the firmware's 32-bit clock at that moment.
    public var time: UInt64
    public var boardTime: UInt32
    public var address: UInt8
    public var kind: Kind
    /// A write: the register pointer, then the data. A read: the register pointer,
    /// then the bytes read back (none when NACKed).
    public var bytes: [UInt8]
    public var acknowledged: Bool

    public var register: UInt8? { bytes.first }

    public init(time: UInt64, boardTime: UInt32, address: UInt8, kind: Kind, bytes: [UInt8], acknowledged: Bool) {
        self.time = time
        self.boardTime = boardTime
        self.address = address
        self.kind = kind
        self.bytes = bytes
        self.acknowledged = acknowledged
    }

    public var description: String {
        "\(time) µs \(kind == .write ? "W" : "R") \(Hex.literal(address, width: 2)) [\(Hex.bytes(bytes, separator: " "))]\(acknowledged ? "" : " NACK")"
    }
}

/// One register changed by a write, with auto-increment writes split per register.
public struct RegisterWrite: Sendable, Equatable {
    public var time: UInt64
    public var boardTime: UInt32
    public var register: UInt8
    public var value: UInt8

    public init(time: UInt64, boardTime: UInt32, register: UInt8, value: UInt8) {
        self.time = time
        self.boardTime = boardTime
        self.register = register
        self.value = value
    }
}

extension SimulatedBoard {
    /// Acknowledged writes to the chip, one entry per register.
    public var registerWrites: [RegisterWrite] {
        var out: [RegisterWrite] = []
        for t in i2cLog where t.kind == .write && t.acknowledged && t.address == chip.address {
            guard let first = t.register else { continue }
            for (i, value) in t.bytes.dropFirst().enumerated() {
                out.append(RegisterWrite(time: t.time, boardTime: t.boardTime, register: first &+ UInt8(truncatingIfNeeded: i), value: value))
            }
        }
        return out
    }

    /// Forgets the I2C log (long runs: the firmware reads STATUS every 20 ms).
    public func clearI2CLog() {
        i2cLog.removeAll()
        unloggedI2CTransactions = 0
    }
}
