/// A chip command stamped with the board time it is to run at (unwrapped µs): what
/// an engine streams through the link.
public struct StampedCommand: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// RTP_INPUT (the amplitude byte as the chip takes it).
        case rtp(UInt8)
        /// One register write.
        case register(UInt8, UInt8)
        /// The actuator to rest and the chip to standby.
        case stop
    }

    public var time: Int64
    public var kind: Kind

    public init(time: Int64, kind: Kind) {
        self.time = time
        self.kind = kind
    }
}
