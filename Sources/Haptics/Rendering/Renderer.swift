/// Renders a pattern to a `Timeline`. The rules, each pinned by a test:
///
/// - **Time.** Pattern time τ plays at output time τ / playbackRate. Sample k sits
///   at output time k / sampleRate; samples run from 0 to the pattern's duration
///   (`HapticPattern.duration`).
/// - **Dynamic parameters** (see `ControlTrack`): HapticIntensityControl multiplies
///   an event's intensity, HapticSharpnessControl adds to its sharpness, each
///   result clamped to 0…1, evaluated at every sample (and at each transient's
///   moment; the sharpness control reaches transients only with
///   `RenderOptions.SharpnessControlScope.allHapticEvents`; neither reaches them in a
///   pattern whose `transientPlayback` is `.apart`). The attack/decay/release
///   time controls add to the event's 0…1 values and are taken when the event starts.
/// - **Continuous events** contribute `intensity × envelope(t)` over
///   [time, time + duration) (see `Envelope`).
/// - **Mixing.** Overlapping continuous events combine by `MixingRule`: intensities
///   add, clipped at 1; sharpness is their intensity-weighted mean (that of the
///   latest-started where all are silent); 0 where nothing plays.
/// - **Transients** are impulses listed apart with their intensity and sharpness;
///   they are not added into the sampled traces.
/// - **Audio events** are counted, not rendered.
/// - **Bounds.** Both the sample count and the summed samples of continuous events
///   are checked before any work or allocation (`RenderOptions`).
public enum Renderer {
    public static func render(_ pattern: HapticPattern, options: RenderOptions = RenderOptions()) throws(RenderError) -> Timeline {
        let rate = options.playbackRate, sampleRate = options.sampleRate
        guard sampleRate.isFinite, sampleRate >= 1, sampleRate <= 1_000_000 else { throw .invalidSampleRate(sampleRate) }
        guard rate.isFinite, rate > 0 else { throw .invalidPlaybackRate(rate) }
        let duration = pattern.duration / rate
        let needed = (duration * sampleRate).rounded(.down) + 1
        guard needed.isFinite, needed <= Double(options.maxSamples) else {
            throw .tooManySamples(needed: needed, limit: options.maxSamples)
        }
        let count = Int(needed)
        let eventSamples = pattern.events.reduce(0.0) { total, event in
            event.type == .hapticContinuous
                ? total + Double(samples(of: event, playbackRate: rate, sampleRate: sampleRate, count: count).count) : total
        }
        guard eventSamples <= Double(options.maxEventSamples) else {
            throw .tooMuchWork(eventSamples: eventSamples, limit: options.maxEventSamples)
        }
        let sharpnessReachesTransients = options.sharpnessControl == .allHapticEvents
        // Meta's split: transients on a player of their own, which has no controls.
        let controlsReachTransients = pattern.transientPlayback == .underPatternControls
        let intensityControl = ControlTrack(id: .hapticIntensityControl, pattern: pattern)
        let sharpnessControl = ControlTrack(id: .hapticSharpnessControl, pattern: pattern)
        let attackControl = ControlTrack(id: .hapticAttackTimeControl, pattern: pattern)
        let decayControl = ControlTrack(id: .hapticDecayTimeControl, pattern: pattern)
        let releaseControl = ControlTrack(id: .hapticReleaseTimeControl, pattern: pattern)

        // Sample k sits at pattern time k * step. One multiply, not a division, per
        // sample: divisions dominated this loop.
        let step = rate / sampleRate
        let intensityControlSamples = intensityControl.isDefault ? nil
            : intensityControl.sampled(count: count, step: step)
        let sharpnessControlSamples = sharpnessControl.isDefault ? nil
            : sharpnessControl.sampled(count: count, step: step)
        // The outputs double as accumulators (three arrays per render: large
        // allocations are page faults, which cost more than the arithmetic).
        var intensity = [Double](repeating: 0, count: count)
        var weightedSharpness = [Double](repeating: 0, count: count)
        // Sharpness of the latest-started event playing at each sample: events are
        // visited in start order, so the last write wins.
        var sharpness = [Double](repeating: 0, count: count)
        var transients: [Timeline.Transient] = []
        var audioEvents = 0

        let order = pattern.events.indices.sorted {
            (pattern.events[$0].time, $0) < (pattern.events[$1].time, $1)
        }
        for index in order {
            let event = pattern.events[index]
            switch event.type {
            case .audioContinuous, .audioCustom:
                audioEvents += 1
            case .hapticTransient:
                transients.append(Timeline.Transient(
                    time: event.time / rate,
                    intensity: clamp01(event.parameters.intensity * (controlsReachTransients ? intensityControl.value(at: event.time) : 1)),
                    sharpness: clamp01(event.parameters.sharpness
                        + (controlsReachTransients && sharpnessReachesTransients ? sharpnessControl.value(at: event.time) : 0)),
                    eventIndex: index))
            case .hapticContinuous:
                let envelope = Envelope(
                    event: event,
                    attackControl: attackControl.value(at: event.time),
                    decayControl: decayControl.value(at: event.time),
                    releaseControl: releaseControl.value(at: event.time))
                let range = samples(of: event, playbackRate: rate, sampleRate: sampleRate, count: count)
                guard !range.isEmpty else { continue }
                accumulate(
                    event, envelope: envelope, samples: range, step: step,
                    intensityControl: intensityControlSamples, sharpnessControl: sharpnessControlSamples,
                    intensity: &intensity, weightedSharpness: &weightedSharpness, sharpness: &sharpness)
            }
        }

        for k in 0..<count {
            (intensity[k], sharpness[k]) = MixingRule.resolve(
                totalIntensity: intensity[k], weightedSharpness: weightedSharpness[k], latestSharpness: sharpness[k])
        }
        transients.sort { ($0.time, $0.eventIndex) < ($1.time, $1.eventIndex) }
        return Timeline(
            sampleRate: sampleRate, playbackRate: rate, duration: duration,
            intensity: intensity, sharpness: sharpness, transients: transients, audioEventCount: audioEvents)
    }

    /// The samples whose pattern time lies in [time, end) of `event`.
    static func samples(of event: HapticEvent, playbackRate: Double, sampleRate: Double, count: Int) -> Range<Int> {
        let first = sampleIndex(atOrAfter: event.time / playbackRate * sampleRate - 1e-9, count: count)
        let last = sampleIndex(atOrAfter: event.endTime / playbackRate * sampleRate - 1e-9, count: count)
        return first..<max(first, last)
    }

    /// ⌈position⌉ clamped to 0…count before it becomes an Int, so no time a pattern
    /// holds can trap the conversion.
    @inline(__always) static func sampleIndex(atOrAfter position: Double, count: Int) -> Int {
        let clamped = min(max(position.rounded(.up), 0), Double(count))
        return clamped.isNaN ? 0 : Int(clamped)
    }

    /// Adds one continuous event into the accumulators.
    private static func accumulate(
        _ event: HapticEvent, envelope: Envelope, samples: Range<Int>, step: Double,
        intensityControl: [Double]?, sharpnessControl: [Double]?,
        intensity: inout [Double], weightedSharpness: inout [Double], sharpness: inout [Double]
    ) {
        let baseIntensity = event.parameters.intensity, baseSharpness = event.parameters.sharpness
        let start = event.time
        let constantSharpness = clamp01(baseSharpness)
        intensity.withUnsafeMutableBufferPointer { sumI in
        weightedSharpness.withUnsafeMutableBufferPointer { sumIS in
        sharpness.withUnsafeMutableBufferPointer { latest in
            for k in samples {
                let control = intensityControl?[k] ?? 1
                let value = clamp01(baseIntensity * control) * envelope.gain(at: Double(k) * step - start)
                let s = sharpnessControl.map { clamp01(baseSharpness + $0[k]) } ?? constantSharpness
                sumI[k] += value
                sumIS[k] += value * s
                latest[k] = s
            }
        }}}
    }

    @inline(__always) static func clamp01(_ value: Double) -> Double { min(max(value, 0), 1) }
}
