import Hex
import LibFTDI

/// Why an FT232H could not be brought up or stopped answering as MPSSE should.
public enum FT232HError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libftdi failed (the call, its code and message).
    case ftdi(FTDIError)
    /// The bad-command probe did not come back as 0xFA + the probe: the chip is not in
    /// MPSSE mode, or an earlier command stream left it out of step.
    case outOfSync(answer: [UInt8])
    /// The FT232H echoed 0xFA + `opcode`: a command it does not know was in the stream.
    case badCommand(opcode: UInt8)

    public var description: String {
        switch self {
        case .ftdi(let e): return e.advice.map { "\(e.description); \($0)" } ?? e.description
        case .outOfSync(let answer):
            return "the FT232H answered \(Hex.bytes(answer, separator: " ")) to the MPSSE sync probe (expected FA AB): not in MPSSE mode or out of step"
        case .badCommand(let opcode):
            return "the FT232H rejected MPSSE command \(Hex.literal(opcode, width: 2)) (bad-command echo FA \(Hex.digits(opcode, width: 2)))"
        }
    }
}
