/// The MPSSE clock (AN_108 §3.8): TCK/SCL = master ÷ ((1 + divisor) × 2), the master
/// 60 MHz, or 12 MHz with divide-by-5 on (the power-on state). With three-phase
/// clocking a data bit takes 1.5 clock periods, so an I2C rate needs a divisor for
/// 1.5 times that rate.
public struct MPSSEClock: Sendable, Equatable {
    public static let masterHz = 60_000_000.0
    public static let dividedByFiveHz = 12_000_000.0

    public var divisor: UInt16
    public var divideBy5: Bool
    public var threePhase: Bool

    public init(divisor: UInt16 = 0, divideBy5: Bool = true, threePhase: Bool = false) {
        self.divisor = divisor
        self.divideBy5 = divideBy5
        self.threePhase = threePhase
    }

    /// The TCK rate: cycles per second of the clock commands.
    public var tckHz: Double { (divideBy5 ? Self.dividedByFiveHz : Self.masterHz) / (2 * (1 + Double(divisor))) }

    /// Nanoseconds one data bit takes on the wire.
    public var nanosecondsPerBit: Double { 1e9 / tckHz * (threePhase ? 1.5 : 1) }

    /// The clock for an I2C bus at `sclHz` (AN_255: divide-by-5 off, three-phase on).
    public static func i2c(sclHz: Double) -> MPSSEClock {
        let d = (masterHz / (2 * 1.5 * sclHz)).rounded() - 1
        return MPSSEClock(divisor: UInt16(min(max(d, 0), Double(UInt16.max))), divideBy5: false, threePhase: true)
    }
}
