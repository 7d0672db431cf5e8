import DRV2605

/// The compiler's output side (rule 4, economy and pacing): what the chip was last
/// told, and the drive change not yet sent, coalesced.
///
/// - **Economy.** A layer may change the drive several times at one stamp (a burst
///   ending as the continuous level moves); only the last RTP code and OL_LRA_PERIOD
///   code of a stamp count, the RTP goes ahead of the period write (the amplitude is
///   the event), and nothing is sent that the chip already has.
/// - **Pacing.** A stamp carrying k writes holds the next one back by k ×
///   `spacing` of board time (`BoardIntake`): a change due sooner waits for that
///   slot, and every change due up to the slot lands in it, the last value winning.
///   So a change after a quiet spell goes out on its own microsecond (a transient's
///   onset is on time), and a burst of changes denser than the board takes in is
///   what the drive is at each slot: sampled at the intake, never queued behind it.
struct CommandEmitter: Sendable {
    /// Board µs a write holds the next stamp back; 0 paces nothing.
    var spacing: Int64 = BoardIntake.writeSpacingMicroseconds
    private(set) var lastCode: Int8?
    private var lastPeriod: UInt8?
    /// The latest time given to `set`: stamps never go backwards.
    private(set) var lastTime = Int64.min
    /// The earliest stamp the pacing lets the next write take.
    private var nextSlot = Int64.min
    /// The change not yet sent: its stamp (its own time, or the slot it waits for),
    /// and whether it waits.
    private var pending: (time: Int64, code: Int8, period: UInt8?, waits: Bool)?
    /// Pacing's toll: drive values a later one replaced in their slot (never sent),
    /// and writes sent later than their own time (by less than a slot).
    private(set) var merged = 0
    private(set) var delayed = 0

    /// The drive at `time` (clamped to the latest time given); a nil period leaves
    /// the period register as it is.
    mutating func set(code: Int8, period: UInt8?, at time: Int64, into out: inout [TimedCommand]) {
        let t = max(time, lastTime)
        lastTime = t
        if var p = pending, t <= p.time {
            // The same stamp, or within the slot a waiting change holds: the last value wins.
            let next = (code: code, period: period ?? p.period)
            if p.waits, changes(p.code, p.period), next != (p.code, p.period) { merged += 1 }
            p.code = next.code
            p.period = next.period
            pending = p
            return
        }
        if pending != nil { flush(into: &out) }
        // Nothing the chip does not have: nothing waits (a later change takes the slot).
        guard changes(code, period) else { return }
        let slot = max(t, nextSlot)
        pending = (slot, code, period, slot > t)
    }

    /// Sends the pending change if its stamp is at or before `time` (all of it with
    /// no bound: the end of a program).
    mutating func flush(upTo time: Int64 = .max, into out: inout [TimedCommand]) {
        guard let p = pending, p.time <= time else { return }
        pending = nil
        var writes: Int64 = 0
        if p.code != lastCode {
            out.append(TimedCommand(time: p.time, command: .rtp(p.code)))
            lastCode = p.code
            writes += 1
        }
        if let period = p.period, period != lastPeriod {
            out.append(TimedCommand(time: p.time, command: .register(Self.openLoopPeriodRegister, period)))
            lastPeriod = period
            writes += 1
        }
        if writes > 0 {
            nextSlot = p.time + writes * max(0, spacing)
            if p.waits { delayed += Int(writes) }
        }
    }

    /// A change is waiting for its slot: there is more to send.
    var hasPending: Bool { pending != nil }

    /// Whether a code and period would write anything.
    private func changes(_ code: Int8, _ period: UInt8?) -> Bool {
        code != lastCode || (period != nil && period != lastPeriod)
    }

    /// After a stop or reset the chip's state is unknown: the next codes are sent
    /// whatever they are, as soon as asked (the stop flushed the board).
    mutating func forgetChipState() {
        lastCode = nil
        lastPeriod = nil
        pending = nil
        nextSlot = .min
    }

    /// The host has just written RTP_INPUT = 0 itself (the engine's prepare): the
    /// next code is sent only if it is not 0.
    mutating func knowAtRest() {
        forgetChipState()
        lastCode = 0
    }

    static let openLoopPeriodRegister = RegisterAddress.openLoopLRAPeriod.rawValue
}
