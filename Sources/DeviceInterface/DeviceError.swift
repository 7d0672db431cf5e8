/// A device-level failure (never a protocol verdict: those come back as frames): its
/// `kind`, what a program can act on, and the context a user needs (the device, what
/// was being done, the advice), which `description` turns into one line.
///
/// A struct with an open set of kinds, not an enum, for the reason swift-system's
/// `Errno` is one: a public enum's cases are a promise to every user who `switch`es
/// over them exhaustively, so adding a case (the bootloader's, a new adapter's) or
/// removing one breaks their build. A new `Kind` breaks nobody: code that matches a
/// kind has a `default` already.
///
/// ```swift
/// do { try transport.send(frame) } catch {
///     switch error {                       // error: DeviceError
///     case .disconnected: waitForTheBoard()
///     case .busy, .accessDenied: tellTheUser(error.description)
///     default: throw error
///     }
/// }
/// catch DeviceError.Kind.timeout { … }     // from an untyped `throws`
/// if error.kind == .disconnected { … }
/// ```
public struct DeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a program tells failures apart. `name` is stable: tools that
    /// print a kind ("device.accessDenied") and tests match it. Another module adds a
    /// kind of its own as `Errno`'s users do, with a name no other kind has:
    ///
    /// ```swift
    /// extension DeviceError.Kind {
    ///     public static let hubPowerOff = DeviceError.Kind("hubPowerOff")
    /// }
    /// ```
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The link is gone (unplugged, powered off, reset).
        public static let disconnected = Kind("disconnected")
        /// The operating system refused access to the device node.
        public static let accessDenied = Kind("accessDenied")
        /// Another program has the device open (its interface is claimed).
        public static let busy = Kind("busy")
        /// Nothing answers at the address, or no device matches it.
        public static let notFound = Kind("notFound")
        /// The device did not answer in time.
        public static let timeout = Kind("timeout")
        /// Any other I/O failure, with the transport's own words.
        public static let io = Kind("io")

        /// `case .busy:` in a `switch` over a `DeviceError`.
        public static func ~= (kind: Kind, error: DeviceError) -> Bool { error.kind == kind }

        /// `catch DeviceError.Kind.busy` where the error is untyped, as `Errno`'s `~=`.
        /// It takes any error, so in a `switch` over another error type with members of
        /// these names (LibUSBError's `.busy`, `.timeout`, `.io`) a bare `case .busy:` is
        /// this one and never matches: write `case LibUSBError.busy:` there.
        public static func ~= (kind: Kind, error: any Error) -> Bool { (error as? DeviceError)?.kind == kind }
    }

    public let kind: Kind
    /// The device the failure concerns, as a user recognises it ("/dev/bus/usb/001/004
    /// (usb:1-2)"), when the kind names one.
    public let device: String?
    /// The rest of what a user needs: what was not found or timed out, the transport's
    /// own words, or the advice that goes with `accessDenied`.
    public let detail: String

    /// An error of any kind, a module's own included; `description` names the device
    /// and the kind, then the detail.
    public init(_ kind: Kind, device: String? = nil, detail: String = "") {
        self.kind = kind
        self.device = device
        self.detail = detail
    }

    /// The link is gone (unplugged, powered off, reset).
    public static var disconnected: DeviceError { DeviceError(.disconnected) }

    /// The operating system refused access to `device`; `advice` says what to change.
    public static func accessDenied(device: String, advice: String) -> DeviceError {
        DeviceError(.accessDenied, device: device, detail: advice)
    }

    /// Another program has `device` open (its interface is claimed).
    public static func busy(device: String) -> DeviceError { DeviceError(.busy, device: device) }

    /// Nothing answers at an address, or no device matches it: `what` is the whole message.
    public static func notFound(_ what: String) -> DeviceError { DeviceError(.notFound, detail: what) }

    /// `what` did not happen in time.
    public static func timeout(_ what: String) -> DeviceError { DeviceError(.timeout, detail: what) }

    /// Any other I/O failure, in the transport's own words.
    public static func io(_ what: String) -> DeviceError { DeviceError(.io, detail: what) }

    public var description: String {
        let device = device ?? "the device"
        return switch kind {
        case .disconnected: "the device is disconnected"
        case .accessDenied: "permission denied opening \(device): \(detail)"
        case .busy: "\(device) is in use by another program (its interface is claimed)"
        case .notFound: detail
        case .timeout: "timed out: \(detail)"
        case .io: "device I/O failed: \(detail)"
        default: "\(device): \(kind)" + (detail.isEmpty ? "" : ": \(detail)")
        }
    }
}
