/// Renders a pattern to a `Timeline`. The rules, each pinned by a test:
///
/// - **Time.** Pattern time τ plays at output time τ / playbackRate. Sample k sits
///   at output time k / sampleRate; samples run from 0 to the pattern's duration.
/// - **Dynamic parameters** (see `ControlTrack`): HapticIntensityControl multiplies
///   an event's intensity, HapticSharpnessControl adds to its sharpness, each
///   result clamped to 0…1, evaluated at every sample (and at each transient's
///   moment). The attack/decay/release time controls add to the event's 0…1 values
///   and are taken when the event starts.
/// - **Continuous events** contribute `intensity × envelope(t)` over
///   [time, time + duration) (see `Envelope`).
/// - **Mixing.** Overlapping continuous events add their intensities, clipped at 1
///   — one actuator carries one amplitude, and adding is how simultaneous
///   vibrations combine; sharpness is the intensity-weighted mean of the events
///   playing (the louder event sets the feel), or, where every playing event is
///   silent, that of the latest-started one; 0 where nothing plays.
/// - **Transients** are impulses listed apart with their intensity and sharpness;
///   they are not added into the sampled traces.
/// - **Audio events** are counted, not rendered.
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
        let intensityControl = ControlTrack(id: .hapticIntensityControl, pattern: pattern)
        let sharpnessControl = ControlTrack(id: .hapticSharpnessControl, pattern: pattern)
        let attackControl = ControlTrack(id: .hapticAttackTimeControl, pattern: pattern)
        let decayControl = ControlTrack(id: .hapticDecayTimeControl, pattern: pattern)
        let releaseControl = ControlTrack(id: .hapticReleaseTimeControl, pattern: pattern)

        var sumIntensity = [Double](repeating: 0, count: count)
        var sumWeightedSharpness = [Double](repeating: 0, count: count)
        var fallbackSharpness = [Double](repeating: 0, count: count)
        var fallbackStart = [Double](repeating: -.infinity, count: count)
        var transients: [Timeline.Transient] = []
        var audioEvents = 0

        for (index, event) in pattern.events.enumerated() {
            switch event.type {
            case .audioContinuous, .audioCustom:
                audioEvents += 1
            case .hapticTransient:
                transients.append(Timeline.Transient(
                    time: event.time / rate,
                    intensity: clamp01(event.parameters.intensity * intensityControl.value(at: event.time)),
                    sharpness: clamp01(event.parameters.sharpness + sharpnessControl.value(at: event.time)),
                    eventIndex: index))
            case .hapticContinuous:
                let envelope = Envelope(
                    event: event,
                    attackControl: attackControl.value(at: event.time),
                    decayControl: decayControl.value(at: event.time),
                    releaseControl: releaseControl.value(at: event.time))
                // Samples whose pattern time lies in [time, end).
                let first = max(0, Int((event.time / rate * sampleRate - 1e-9).rounded(.up)))
                let endPosition = event.endTime / rate * sampleRate
                var k = first
                while k < count, Double(k) < endPosition - 1e-9 {
                    let tau = Double(k) / sampleRate * rate
                    let intensity = clamp01(event.parameters.intensity * intensityControl.value(at: tau))
                        * envelope.gain(at: tau - event.time)
                    let sharpness = clamp01(event.parameters.sharpness + sharpnessControl.value(at: tau))
                    sumIntensity[k] += intensity
                    sumWeightedSharpness[k] += intensity * sharpness
                    if event.time >= fallbackStart[k] {
                        fallbackStart[k] = event.time
                        fallbackSharpness[k] = sharpness
                    }
                    k += 1
                }
            }
        }

        var intensity = sumIntensity
        var sharpness = fallbackSharpness
        for k in 0..<count where sumIntensity[k] > 0 {
            intensity[k] = min(1, sumIntensity[k])
            sharpness[k] = sumWeightedSharpness[k] / sumIntensity[k]
        }
        transients.sort { ($0.time, $0.eventIndex) < ($1.time, $1.eventIndex) }
        return Timeline(
            sampleRate: sampleRate, playbackRate: rate, duration: duration,
            intensity: intensity, sharpness: sharpness, transients: transients, audioEventCount: audioEvents)
    }

    @inline(__always) static func clamp01(_ value: Double) -> Double { min(max(value, 0), 1) }
}
