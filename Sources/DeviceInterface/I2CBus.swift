import Hex

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

/// A failed bus transaction: its `kind`, what a program can act on, and the context a
/// user needs (the address, the register, the adapter's advice or words), which
/// `description` turns into one line.
///
/// A struct with an open set of kinds, not an enum, for `DeviceError`'s reason (and
/// swift-system's `Errno`'s): a new adapter's failure (a CP2112's, a bus's arbitration)
/// is a new `Kind`, not a source break for every `switch` a user wrote over the cases.
/// Constructing one reads as a case did (`throw .addressNotAcknowledged(address: 0x5A)`);
/// matching takes the kind and reads the context from the value:
///
/// ```swift
/// do { try await bus.write(address: 0x5A, register: 0x01, bytes: [0x00]) } catch {
///     switch error {                       // error: I2CError
///     case .addressNotAcknowledged: checkTheWiring(error.advice)
///     case .adapterFailure: reconnect(because: error.detail)
///     case .cancelled: return
///     default: throw error
///     }
/// }
/// catch I2CError.Kind.dataNotAcknowledged { … }   // from an untyped `throws`
/// if error.kind == .adapterFailure { … }
/// ```
public struct I2CError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a program tells failures apart. `name` is stable: tools that
    /// print a kind and tests match it. Another module adds a kind of its own as
    /// `DeviceError.Kind`'s users do, with a name no other kind has:
    ///
    /// ```swift
    /// extension I2CError.Kind {
    ///     public static let arbitrationLost = I2CError.Kind("arbitrationLost")
    /// }
    /// ```
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// Nobody acknowledged the address byte: chip absent, unpowered, wrong address
        /// (a DRV2605 with EN low still acknowledges).
        public static let addressNotAcknowledged = Kind("addressNotAcknowledged")
        /// The chip acknowledged its address but not a data byte.
        public static let dataNotAcknowledged = Kind("dataNotAcknowledged")
        /// The adapter itself failed (USB gone, arbitration lost, ...).
        public static let adapterFailure = Kind("adapterFailure")
        /// A wait was cancelled (the task was cancelled while sleeping).
        public static let cancelled = Kind("cancelled")

        /// `case .adapterFailure:` in a `switch` over an `I2CError`.
        public static func ~= (kind: Kind, error: I2CError) -> Bool { error.kind == kind }

        /// `catch I2CError.Kind.cancelled` where the error is untyped, as `DeviceError.Kind`'s.
        public static func ~= (kind: Kind, error: any Error) -> Bool { (error as? I2CError)?.kind == kind }
    }

    public let kind: Kind
    /// The 7-bit address the transaction was for, when the kind names one.
    public let address: UInt8?
    /// The register whose data byte was refused (`dataNotAcknowledged`).
    public let register: UInt8?
    /// What to check on the adapter that saw an unacknowledged address, where its wiring
    /// has mistakes of its own (the FT232H's SDA on two pins); nil for the general checks.
    public let advice: String?
    /// The rest of what a user needs: the adapter's own words for `adapterFailure`.
    public let detail: String

    /// An error of any kind, a module's own included; `description` names the kind, the
    /// address and register, then the detail and the advice.
    public init(_ kind: Kind, address: UInt8? = nil, register: UInt8? = nil, advice: String? = nil, detail: String = "") {
        self.kind = kind
        self.address = address
        self.register = register
        self.advice = advice
        self.detail = detail
    }

    /// Nobody acknowledged `address`; `advice` is the adapter's own checks, nil for the
    /// general ones.
    public static func addressNotAcknowledged(address: UInt8, advice: String? = nil) -> I2CError {
        I2CError(.addressNotAcknowledged, address: address, advice: advice)
    }

    /// The chip at `address` acknowledged its address but not the data for `register`.
    public static func dataNotAcknowledged(address: UInt8, register: UInt8) -> I2CError {
        I2CError(.dataNotAcknowledged, address: address, register: register)
    }

    /// The adapter itself failed, in its own words.
    public static func adapterFailure(_ why: String) -> I2CError { I2CError(.adapterFailure, detail: why) }

    /// A wait was cancelled.
    public static var cancelled: I2CError { I2CError(.cancelled) }

    /// What to check when nothing acknowledges and the adapter has no advice of its own
    /// (`FrameTransport.i2cNoAcknowledgeAdvice`): the general checks.
    public static let noAcknowledgeAdvice = "chip absent, unpowered, or SDA/SCL miswired?"

    public var description: String {
        let at = address.map { Hex.literal($0, width: 2) } ?? "(unknown)"
        return switch kind {
        case .addressNotAcknowledged: "no ACK from I2C address \(at) (\(advice ?? Self.noAcknowledgeAdvice))"
        case .dataNotAcknowledged: "I2C device \(at) did not acknowledge data for register \(register.map { Hex.literal($0, width: 2) } ?? "(unknown)")"
        case .adapterFailure: "I2C adapter failure: \(detail)"
        case .cancelled: "wait cancelled"
        default:
            "I2C \(kind)" + (address.map { " at \(Hex.literal($0, width: 2))" } ?? "") + (register.map { " register \(Hex.literal($0, width: 2))" } ?? "")
                + (detail.isEmpty ? "" : ": \(detail)") + (advice.map { " (\($0))" } ?? "")
        }
    }
}

public extension I2CBus {
    func readByte(address: UInt8, register: UInt8) async throws(I2CError) -> UInt8 {
        let bytes = try await read(address: address, register: register, count: 1)
        guard let first = bytes.first else { throw .dataNotAcknowledged(address: address, register: register) }
        return first
    }
}
