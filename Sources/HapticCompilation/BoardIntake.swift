import CHapbridgeProtocol

/// How fast a bridge board takes stamped chip writes: the one place these figures
/// live. The compiler paces what it emits by them (`DriveCompiler`, rule 4), the
/// work limits are stated against them (`CompilationLimits`), and the engine says
/// them when a board falls behind all the same.
///
/// A stamped write costs a board two things. Its time on the chip's bus: one
/// register write at 400 kHz is ~82 µs START to STOP (71.25 µs of clocks and the
/// firmware's own time between bytes; Firmware/README.md), so the bus alone carries
/// about 12 a millisecond. And, on the
/// ATmega32U4 port, CPU on the one core that also takes the frames in (measured, and
/// the figure the port states: `WRITE_SPACING_US` in Firmware/ports/atmega32u4/main.c).
/// A port states its intake in HELLO_REPLY and the engine paces each board by what
/// it states; the simulated board states the ATmega32U4's, so it plays exactly what
/// the hardware would.
public enum BoardIntake {
    /// One register write on the chip's I2C bus at 400 kHz, START to STOP, µs (as
    /// measured on the ELF under simavr's bus at its real speed, Firmware/README.md).
    public static let chipWriteMicroseconds: Int64 = 82

    /// The compiler's pacing unless told the board's own: the least board time between
    /// two stamped writes; a stamp carrying k writes (an RTP and its OL_LRA_PERIOD)
    /// holds the next stamp k × this later. A board states its own in HELLO_REPLY
    /// (the engine paces by that); this is what protocol.h says to assume for a board
    /// that does not (`HB_UNSTATED_WRITE_SPACING_US`, the ATmega32U4's figure:
    /// Firmware/README.md, "Intake").
    public static let writeSpacingMicroseconds = Int64(HB_UNSTATED_WRITE_SPACING_US)

    /// Writes a millisecond at a spacing (µs): what "the board's intake" means in
    /// messages and statistics.
    public static func writesPerMillisecond(spacing: Int64) -> Double {
        spacing > 0 ? 1000 / Double(spacing) : .infinity
    }
}
