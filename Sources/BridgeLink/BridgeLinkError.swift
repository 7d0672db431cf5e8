import BridgeProtocol
import DeviceInterface

/// Why a link to a board failed, each saying what to do.
public enum BridgeLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    case device(DeviceError)
    /// Nothing came back in time.
    case noAnswer(String)
    /// Something came back, but not the hapbridge protocol.
    case notHapbridge(String)
    /// The board speaks another protocol major.
    case protocolVersion(board: String)
    /// The board's firmware predates register access (protocol 1.0).
    case firmwareTooOld(String, protocolVersion: String)
    case notOpen
    case rejected(NakReason, what: String)
    case invalidRequest(String)
    case i2c(I2CError)
    /// The link's `interruption` gave this reason to stop waiting.
    case interrupted(String)

    public var description: String {
        switch self {
        case .device(let e): e.description
        case .noAnswer(let why): "\(why): is it a hapbridge board with its firmware running?"
        case .notHapbridge(let why): why
        case .protocolVersion(let v):
            "the board speaks protocol \(v); this hapbridge speaks \(HostFrameEncoder.protocolMajor).\(HostFrameEncoder.protocolMinor): update one of them (`hapbridge flash`)"
        case .firmwareTooOld(let fw, let p):
            "firmware \(fw) (protocol \(p)) cannot read registers: run `hapbridge flash` to update the board"
        case .notOpen: "no session: open() first"
        case .rejected(let reason, let what): "the board refused \(what): \(reason)"
        case .invalidRequest(let why): why
        case .i2c(let e): e.description
        case .interrupted(let why): why
        }
    }

    /// As a driver's bus reports it.
    public var i2cError: I2CError {
        switch self {
        case .i2c(let e): e
        case .interrupted: .cancelled
        default: .adapterFailure(description)
        }
    }
}
