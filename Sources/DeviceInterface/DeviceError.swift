/// A device-level failure (never a protocol verdict: those come back as frames),
/// each case saying what a user can do about it.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link is gone (unplugged, powered off, reset).
    case disconnected
    /// The operating system refused access to the device node.
    case accessDenied(device: String, advice: String)
    /// Another program has the device open (its interface is claimed).
    case busy(device: String)
    /// Nothing answers at the address, or no device matches it.
    case notFound(String)
    /// The device did not answer in time.
    case timeout(String)
    /// Any other I/O failure, with the transport's own words.
    case io(String)

    public var description: String {
        switch self {
        case .disconnected: "the device is disconnected"
        case .accessDenied(let device, let advice): "permission denied opening \(device): \(advice)"
        case .busy(let device): "\(device) is in use by another program (its interface is claimed)"
        case .notFound(let what): what
        case .timeout(let what): "timed out: \(what)"
        case .io(let what): "device I/O failed: \(what)"
        }
    }
}
