import Hex

/// One chip command of a device program, as the bridge protocol's stamped commands
/// carry it. Times are microseconds on the program's (or engine's) own clock; the
/// scheduler turns them into board time when it streams them.
public enum DeviceCommand: Sendable, Equatable, CustomStringConvertible {
    /// RTP_INPUT in the signed format (CONTROL3.DATA_FORMAT_RTP = 0): -127...127 of
    /// full scale; negative drives in reverse, which is how open loop brakes.
    case rtp(Int8)
    /// One register write (the setup block, OL_LRA_PERIOD changes).
    case register(UInt8, UInt8)
    /// The protocol's stop: RTP 0, GO 0, standby.
    case stop

    public var isRTP: Bool {
        if case .rtp = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .rtp(let a): "RTP \(a)"
        case .register(let r, let v): "REG \(Hex.literal(r, width: 2)) = \(Hex.literal(v, width: 2))"
        case .stop: "STOP"
        }
    }
}

/// A command at a time, in µs.
public struct TimedCommand: Sendable, Equatable, CustomStringConvertible {
    public var time: Int64
    public var command: DeviceCommand
    public init(time: Int64, command: DeviceCommand) {
        self.time = time
        self.command = command
    }
    public var description: String { "\(time) µs \(command)" }
}
