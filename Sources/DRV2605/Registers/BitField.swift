/// A run of bits inside one 8-bit register. Every mask and shift of the DRV2605
/// lives in a `BitField` declared next to its register; nothing else in the
/// package shifts or masks register bytes.
public struct BitField: Sendable, Equatable {
    public let shift: UInt8
    public let width: UInt8

    public init(shift: UInt8, width: UInt8) {
        precondition(width >= 1 && shift + width <= 8, "a field must fit in one byte")
        self.shift = shift
        self.width = width
    }

    /// The field's bits in place.
    public var mask: UInt8 { UInt8(truncatingIfNeeded: ((1 << Int(width)) - 1) << Int(shift)) }
    /// The largest value the field holds.
    public var maxValue: UInt8 { UInt8(truncatingIfNeeded: (1 << Int(width)) - 1) }

    public func get(_ raw: UInt8) -> UInt8 { (raw & mask) >> shift }

    /// Values wider than the field are truncated to it (callers validate first).
    public func set(_ raw: inout UInt8, _ value: UInt8) {
        raw = (raw & ~mask) | ((value << shift) & mask)
    }

    public func getFlag(_ raw: UInt8) -> Bool { get(raw) != 0 }
    public func setFlag(_ raw: inout UInt8, _ on: Bool) { set(&raw, on ? 1 : 0) }
}

/// A typed view of one register: its address and its raw byte.
public protocol DRV2605Register: Sendable, Equatable {
    static var address: RegisterAddress { get }
    var rawValue: UInt8 { get set }
    init(rawValue: UInt8)
}
