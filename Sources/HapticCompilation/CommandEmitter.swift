import DRV2605

/// The compiler's output side (rule 4, economy): what the chip was last told, and
/// the changes of the current microsecond, coalesced. A layer may change the drive
/// several times at one stamp (a burst ending as the continuous level moves); only
/// the last RTP code and OL_LRA_PERIOD code of a stamp count, the RTP goes ahead of
/// the period write (the amplitude is the event), and nothing is sent that the chip
/// already has.
struct CommandEmitter: Sendable {
    private(set) var lastCode: Int8?
    private var lastPeriod: UInt8?
    /// The latest stamp given out: stamps never go backwards.
    private(set) var lastTime = Int64.min
    private var pending: (time: Int64, code: Int8, period: UInt8?)?

    /// The drive at `time` (clamped to the latest stamp); a nil period leaves the
    /// period register as it is.
    mutating func set(code: Int8, period: UInt8?, at time: Int64, into out: inout [TimedCommand]) {
        let t = max(time, lastTime)
        if let p = pending, p.time != t { flush(into: &out) }
        pending = (t, code, period ?? pending?.period)
        lastTime = t
    }

    /// Sends what the pending stamp changed.
    mutating func flush(into out: inout [TimedCommand]) {
        guard let p = pending else { return }
        pending = nil
        if p.code != lastCode {
            out.append(TimedCommand(time: p.time, command: .rtp(p.code)))
            lastCode = p.code
        }
        if let period = p.period, period != lastPeriod {
            out.append(TimedCommand(time: p.time, command: .register(Self.openLoopPeriodRegister, period)))
            lastPeriod = period
        }
    }

    /// After a stop or reset the chip's state is unknown: the next codes are sent
    /// whatever they are.
    mutating func forgetChipState() {
        lastCode = nil
        lastPeriod = nil
        pending = nil
    }

    /// The host has just written RTP_INPUT = 0 itself (the engine's prepare): the
    /// next code is sent only if it is not 0.
    mutating func knowAtRest() {
        forgetChipState()
        lastCode = 0
    }

    static let openLoopPeriodRegister = RegisterAddress.openLoopLRAPeriod.rawValue
}
