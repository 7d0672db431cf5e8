/// How long the firmware's chip writes take on its I2C bus at 400 kHz, derived from
/// the SCL rate and the bytes sent, with the firmware's own overheads as measured
/// under simavr on the real-speed TWI (Firmware/sim/twi_bus.c; Firmware/README.md).
enum FirmwareBus {
    /// SCL as the ATmega32U4 port sets it (`TWI_HZ` in Firmware/ports/atmega32u4/twi.c).
    static let sclHertz = 400_000.0
    static let halfPeriodMicroseconds = 1e6 / sclHertz / 2
    /// A register write: SLA+W, register, value.
    static let registerWriteBytes = 3.0
    /// START (tHD;STA, 1 half period), 9 clocks a byte (8 bits and the ACK: 18 half
    /// periods), STOP (2 half periods): 71.25 µs for a register write.
    static let registerWriteBusMicroseconds = (1 + 18 * registerWriteBytes + 2) * halfPeriodMicroseconds
    /// SCL held low while the firmware's polled TWI handles a TWINT (one after the
    /// START and one after each byte): a register write measures 81.75 µs START to
    /// STOP, 10.50 µs over its bus time for its 4 TWINTs (Firmware/README.md,
    /// "I2C at 400 kHz").
    static let firmwarePerTWINTMicroseconds = 10.5 / 4
    /// From one command's STOP to the next due command's START in the timer
    /// context (tBUF, the queue step, the drive bookkeeping, the next write's set
    /// up, and the spin before the carrying write, SPIN_US 60): ~49 µs (the C
    /// harness's batch on one stamp: STARTs 130.6–131.4 µs apart; 31.875 µs with
    /// SPIN_US 40, before the latch change).
    static let firmwarePerCommandMicroseconds = 49.0
    /// One register write of a same-stamp burst, START to the next START: ~131 µs.
    static let burstWriteMicroseconds =
        registerWriteBusMicroseconds + (1 + registerWriteBytes) * firmwarePerTWINTMicroseconds + firmwarePerCommandMicroseconds
    /// A stamped command's first START after its stamp, most: the C harness measures
    /// 1–4.5 µs (`EXEC_LEAD_US` set 1 µs below the least).
    static let startAfterStampMicroseconds = 10.0
    /// A stamp is the STOP of the write that carries the command (the chip latches
    /// there); the firmware aims it at the stamp to within its timer's 0.5 µs tick
    /// and the TWI polling: it may land this much early (Firmware/sim/suite.h,
    /// LATCH_EARLY_US).
    static let latchEarlyMicroseconds = 1.5
}
