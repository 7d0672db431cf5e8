import BridgeProtocol
import CHapbridgeProtocol
import Hex

/// One untimed I2C transaction through the board (protocol 1.1's I2C_READ and
/// I2C_WRITE), at any 7-bit address: a register read or write of the DRV2605, an
/// accelerometer's sample.
public enum UntimedRequest: Sendable, Equatable {
    case read(address: UInt8, register: UInt8, count: Int)
    case write(address: UInt8, register: UInt8, bytes: [UInt8])

    public var address: UInt8 {
        switch self {
        case .read(let a, _, _), .write(let a, _, _): a
        }
    }

    public var register: UInt8 {
        switch self {
        case .read(_, let r, _), .write(_, let r, _): r
        }
    }

    /// Bytes on the wire: address and register, a repeated START's address for a read,
    /// then the data.
    public var bytesOnWire: Int {
        switch self {
        case .read(_, _, let n): 3 + n
        case .write(_, _, let b): 2 + b.count
        }
    }

    /// How long the transaction holds the board's bus, µs: nine SCL clocks a byte at
    /// 400 kHz (22.5 µs) plus the firmware's own time between bytes, as the simavr
    /// suite measures it on the ATmega32U4 ELF (Firmware/README.md: a 3-byte write
    /// 82 µs, a 1-byte read 112 µs, a 32-byte read 908 µs), rounded up to 26 µs a
    /// byte and 10 µs for START, repeated START and STOP: the firmware core's own
    /// figures (`HB_UNTIMED_BYTE_US`, `HB_UNTIMED_FIXED_US`), by which it waits for
    /// a gap in the stream long enough for a read.
    public var busMicroseconds: Int64 { Int64(bytesOnWire) * Int64(HB_UNTIMED_BYTE_US) + Int64(HB_UNTIMED_FIXED_US) }

    /// "I2C read of 0x18 register 0x28" for errors.
    public var description: String {
        switch self {
        case .read(let a, let r, let n): "I2C read of \(n) byte\(n == 1 ? "" : "s") at \(Hex.literal(a, width: 2)) register \(Hex.literal(r, width: 2))"
        case .write(let a, let r, let b): "I2C write of \(b.count) byte\(b.count == 1 ? "" : "s") at \(Hex.literal(a, width: 2)) register \(Hex.literal(r, width: 2))"
        }
    }

    func encode(_ encoder: inout HostFrameEncoder) throws(BridgeProtocolError) -> [UInt8] {
        switch self {
        case .read(let a, let r, let n): try encoder.i2cRead(address: a, register: r, count: n)
        case .write(let a, let r, let b): try encoder.i2cWrite(address: a, register: r, data: b)
        }
    }
}
