/// LIBRARY_SEL[2:0]. Libraries A–E and F are the TouchSense 2200 ERM libraries
/// (for different actuator rise times); 6 is the LRA library.
public enum ROMLibrary: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case empty = 0
    case ermA = 1
    case ermB = 2
    case ermC = 3
    case ermD = 4
    case ermE = 5
    case lra = 6
    case ermF = 7

    public var description: String {
        switch self {
        case .empty: "empty"
        case .ermA: "ERM library A"
        case .ermB: "ERM library B"
        case .ermC: "ERM library C"
        case .ermD: "ERM library D"
        case .ermE: "ERM library E"
        case .lra: "LRA library"
        case .ermF: "ERM library F"
        }
    }
}

/// LIBRARY_SEL (0x03).
public struct LibrarySelectionRegister: DRV2605Register {
    public static let address = RegisterAddress.librarySelection
    public static let highImpedanceField = BitField(shift: 4, width: 1)
    public static let libraryField = BitField(shift: 0, width: 3)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(library: ROMLibrary, highImpedance: Bool = false) {
        rawValue = 0
        self.library = library
        self.highImpedance = highImpedance
    }
    public var library: ROMLibrary {
        get { ROMLibrary(rawValue: Self.libraryField.get(rawValue)) ?? .empty }
        set { Self.libraryField.set(&rawValue, newValue.rawValue) }
    }
    /// HI_Z: outputs high-impedance (lets another driver share the actuator).
    public var highImpedance: Bool {
        get { Self.highImpedanceField.getFlag(rawValue) }
        set { Self.highImpedanceField.setFlag(&rawValue, newValue) }
    }
}

/// One WAV_FRM_SEQn byte: an effect, a wait, or the end of the sequence.
public enum WaveformSequenceEntry: Sendable, Equatable, CustomStringConvertible {
    case effect(ROMEffectID)
    /// A pause of `units` × 10 ms (1...127).
    case wait(units: UInt8)
    case end

    public static let waitField = BitField(shift: 7, width: 1)
    public static let valueField = BitField(shift: 0, width: 7)
    /// One WAIT unit.
    public static let waitUnitMicroseconds: UInt64 = 10_000
    /// Slots in the sequencer.
    public static let capacity = RegisterAddress.waveformSequence.count

    public init(rawValue: UInt8) {
        let value = Self.valueField.get(rawValue)
        if Self.waitField.getFlag(rawValue) {
            self = value == 0 ? .end : .wait(units: value)
        } else if value == 0 {
            self = .end
        } else {
            self = .effect(ROMEffectID(rawValue: value))
        }
    }

    public var rawValue: UInt8 {
        var raw: UInt8 = 0
        switch self {
        case .effect(let id): Self.valueField.set(&raw, id.rawValue)
        case .wait(let units):
            Self.waitField.setFlag(&raw, true)
            Self.valueField.set(&raw, units)
        case .end: break
        }
        return raw
    }

    public var description: String {
        switch self {
        case .effect(let id): "effect \(id.rawValue)"
        case .wait(let units): "wait \(Int(units) * 10) ms"
        case .end: "end"
        }
    }
}

/// A signed time offset register (ODT, SPT, SNT, BRT): adds value × 5 ms to the
/// matching part of every library effect (sequencer only).
public struct TimeOffsetRegister: Sendable, Equatable {
    public let address: RegisterAddress
    public var rawValue: UInt8
    public static let stepMicroseconds: Int64 = 5_000
    public init(address: RegisterAddress, rawValue: UInt8) {
        self.address = address
        self.rawValue = rawValue
    }
    public var offsetMicroseconds: Int64 { Int64(Int8(bitPattern: rawValue)) * Self.stepMicroseconds }
}
