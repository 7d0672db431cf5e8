/// How the emulated FT232H's I2C pins are wired to the DRV2605L's breakout
/// (`hapbridge emulate ft232h --wiring`): as Hardware/boards/ft232h.md says, or with one
/// of the two mistakes that page tells a user to look for. Each is modelled at the pins,
/// so the host's MPSSE I2C meets it as it would meet the real wiring:
///
/// - `sdaNotBridged`: D1 (AD1, TDI: the FT232H's SDA output) goes to SDA, D2 (AD2,
///   TDO: its SDA input) to nothing (no jumper, and the Adafruit FT232H's I2C switch
///   off). The chip sees every bit the host sends and acknowledges its address on SDA,
///   but the host reads the ACK bits, and read data, on D2, which is an input with
///   nothing on it: it reads 1, as every other unconnected ADBUS input of this emulation
///   reads (`MPSSEEngine.readLow`). So every address byte comes back NACKed.
/// - `noPullUps`: SDA and SCL have no pull-up anywhere: none on the breakout, none added,
///   and none in the FT232H (Adafruit's FT232H guide, "I2C": "the FT232H does not have
///   pull-up resistors built in to these lines"). D0-D2 are drive-zero-only (open drain,
///   AN_108 0x9E): they pull a line low or let it go, and nothing raises a line let go,
///   so both lines stay low. The chip never sees SCL rise (no START, no bits); the host
///   reads SDA low at every ACK bit and every data bit: every byte "acknowledged",
///   every register reads 0x00.
public enum FT232HBusWiring: String, Sendable, CaseIterable {
    /// SCL on D0; SDA on D1 and D2, bridged; both pulled up (on the breakout or added).
    case ok
    /// SDA on D1 only: D2, the input the ACK bits and read data come in on, unconnected.
    case sdaNotBridged = "sda-not-bridged"
    /// No pull-up on SDA or SCL.
    case noPullUps = "no-pullups"

    /// A line's level with nothing driving it low.
    var releasedLevel: Bool { self != .noPullUps }
}
