/// |write − stamp| for stamped RTP commands, given the chip's RTP_INPUT writes in
/// order (board µs, value). The board runs its commands in stamp order, one write
/// each, never early (less `earlyTolerance` µs of clock rounding); writes of the
/// board's own (safety stops' zeros) come between them. So each stamp takes the next
/// write of its value not before it — unless a later stamp of the same value is due
/// by then, which makes that write the later command's, on time: this stamp then
/// found no write (its frame was refused), and the writes stay for the stamps after
/// it rather than every later match shifting by one. Returns the errors and how many
/// stamps found no write. Board times as plain numbers: a run is far shorter than
/// the 32-bit clock's 71-minute wrap.
func timingErrors(
    stamps: [(time: Double, amplitude: UInt8)], writes: [(time: Double, value: UInt8)], earlyTolerance: Double
) -> (errors: [Double], unmatched: Int) {
    // For each stamp, the due time of the next stamp with the same amplitude.
    var nextSameDue = [Double](repeating: .infinity, count: stamps.count)
    var latest: [UInt8: Double] = [:]
    for k in stamps.indices.reversed() {
        nextSameDue[k] = latest[stamps[k].amplitude] ?? .infinity
        latest[stamps[k].amplitude] = stamps[k].time
    }
    var errors: [Double] = []
    var unmatched = 0
    var j = 0
    for (k, (due, amplitude)) in stamps.enumerated() {
        var c = j
        while c < writes.count, writes[c].value != amplitude || writes[c].time < due - earlyTolerance { c += 1 }
        guard c < writes.count else {
            unmatched += 1
            continue
        }
        // A later stamp of this amplitude, due by then, owns the write (on time).
        if nextSameDue[k] > due, writes[c].time >= nextSameDue[k] - earlyTolerance {
            unmatched += 1
            continue
        }
        errors.append(abs(writes[c].time - due))
        j = c + 1
    }
    return (errors, unmatched)
}
