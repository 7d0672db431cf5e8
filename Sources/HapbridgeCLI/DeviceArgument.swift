import ArgumentParser
import DeviceInterface

/// `--device ADDRESS`, parsed once, by ArgumentParser, into a `DeviceAddress`.
///
/// A wrapper rather than `DeviceAddress` itself because of how a malformed address must
/// read. ArgumentParser reports a value it could not convert as "The value '…' is
/// invalid for '--device <address>'", echoing the argument whole (a 100 kB argument
/// fills the line before the rule is said) and, from `init?(argument:)`, without the
/// rule at all. Keeping the failure lets `DeviceOptions.validate()` say it as a usage
/// error in the address's own words: `bad device address "…": RULE`, cut past 64
/// characters with its length given (`DeviceAddressError`), status 2 with the usage.
public struct DeviceArgument: ExpressibleByArgument, Sendable, Equatable {
    /// The address, or why the argument is not one.
    public let parsed: Result<DeviceAddress, DeviceAddressError>

    public init(argument: String) {
        parsed = Result { () throws(DeviceAddressError) in try DeviceAddress(parsing: argument) }
    }

    public init(_ address: DeviceAddress) { parsed = .success(address) }

    /// The address; nil only for an argument `DeviceOptions.validate()` has refused.
    public var address: DeviceAddress? { try? parsed.get() }

    public var defaultValueDescription: String { address?.description ?? "" }
}
