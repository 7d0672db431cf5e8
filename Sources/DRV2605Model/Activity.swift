/// What GO (or the trigger pin) set running. RTP, PWM and audio input are not
/// activities: they drive whenever their MODE is selected and the chip is awake.
enum Activity: Equatable {
    case idle
    case sequence(SequencePlayback)
    case diagnostics(remaining: UInt64)
    case autoCalibration(remaining: UInt64)
}

struct SequencePlayback: Equatable {
    var segments: [Segment]
    var index = 0
    var elapsedInSegment: UInt64 = 0
    var current: Segment? { index < segments.count ? segments[index] : nil }

    /// Moves time on; returns false once past the last segment.
    mutating func advance(by us: UInt64) -> Bool {
        elapsedInSegment += us
        while let s = current, elapsedInSegment >= s.microseconds {
            elapsedInSegment -= s.microseconds
            index += 1
        }
        return current != nil
    }
}

/// Measures the LRA's period from back-EMF zero crossings, as the chip's
/// auto-resonance engine does (rising crossings, linearly interpolated).
struct PeriodMeter: Equatable {
    var previousBackEMF = 0.0
    var lastCrossingSeconds: Double?
    var periodSeconds: Double?

    mutating func sample(backEMF: Double, at seconds: Double, step: Double) {
        defer { previousBackEMF = backEMF }
        guard previousBackEMF <= 0, backEMF > 0 else { return }
        let crossing = seconds - step * backEMF / (backEMF - previousBackEMF)
        if let last = lastCrossingSeconds {
            let p = crossing - last
            if p > 1.0 / 1000 && p < 1.0 / 40 { periodSeconds = p }
        }
        lastCrossingSeconds = crossing
    }

    mutating func restart() {
        lastCrossingSeconds = nil
        previousBackEMF = 0
    }
}
