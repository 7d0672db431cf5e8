/// How fast a bridge board takes stamped chip writes: the one place these figures
/// live. The compiler paces what it emits by them (`DriveCompiler`, rule 4), the
/// work limits are stated against them (`CompilationLimits`), and the engine says
/// them when a board falls behind all the same.
///
/// A stamped write costs a board two things. Its time on the chip's bus: one
/// register write at 400 kHz is ~73 µs (START, address, register, value, STOP;
/// Firmware/README.md), so the bus alone carries about 14 a millisecond. And, on the
/// ATmega32U4 port, CPU on the one core that also takes the frames in: ~93 µs a
/// frame in the main loop (the USB intake), then the timer's 40 µs spin and the
/// write itself. Measured under simavr with the engine streaming dense transients
/// (`hapbridge emulate bridge --firmware elf`), a write every 125 µs drains the
/// board's queue: it runs commands later and later, the USB OUT pipe backs up for
/// seconds until a transfer times out; a write every 250 µs keeps up with no
/// underrun. HELLO_REPLY states neither cost (queue capacity and tick say nothing of
/// it), so the engine paces every board by the port that needs it most: a board
/// that runs I2C in no time (the simulated one) then plays exactly what the
/// hardware would.
public enum BoardIntake {
    /// One register write on the chip's I2C bus at 400 kHz, µs.
    public static let chipWriteMicroseconds: Int64 = 73

    /// The least board time between two stamped writes the engine sends: a stamp
    /// carrying k writes (an RTP and its OL_LRA_PERIOD) holds the next stamp k × this
    /// later. 4 writes a millisecond: 1 a control step with room for a sharpness
    /// change and a transient's onset and brake.
    public static let writeSpacingMicroseconds: Int64 = 250

    /// Writes a millisecond at a spacing (µs): what "the board's intake" means in
    /// messages and statistics.
    public static func writesPerMillisecond(spacing: Int64) -> Double {
        spacing > 0 ? 1000 / Double(spacing) : .infinity
    }
}
