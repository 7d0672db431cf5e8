import Testing
@testable import Haptics

/// Each rendering rule, pinned with values worked by hand. Sample rate 1 kHz
/// unless stated, so sample k sits at k ms.
@Suite struct RenderingTests {
    func render(_ pattern: HapticPattern, rate: Double = 1000, playbackRate: Double = 1) throws -> Timeline {
        try Renderer.render(pattern, options: RenderOptions(sampleRate: rate, playbackRate: playbackRate))
    }

    func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

    @Test func samplesRunFromZeroToThePatternDuration() throws {
        // Continuous 10..30 ms: duration 30 ms -> samples 0...30 (31 samples).
        let timeline = try render(HapticPattern(events: [.continuous(at: 0.010, duration: 0.020, intensity: 0.5, sharpness: 0.25)]))
        #expect(timeline.sampleCount == 31)
        #expect(timeline.intensity[9] == 0 && timeline.intensity[10] == 0.5 && timeline.intensity[29] == 0.5)
        // The end is exclusive: at 30 ms the event has stopped.
        #expect(timeline.intensity[30] == 0)
        #expect(timeline.sharpness[10] == 0.25 && timeline.sharpness[9] == 0)
    }

    @Test func transientsAreMarkedImpulsesNotSamples() throws {
        let timeline = try render(HapticPattern(events: [.transient(at: 0.005, intensity: 0.7, sharpness: 0.2)]))
        #expect(timeline.transients == [Timeline.Transient(time: 0.005, intensity: 0.7, sharpness: 0.2, eventIndex: 0)])
        #expect(timeline.intensity.allSatisfy { $0 == 0 })
    }

    @Test func envelopeSecondsGrowExponentiallyWithTheValue() {
        // (1001^v - 1) / 1000: v = 0 -> 0; v = 1 -> 1 s; v = 0.5 -> (31.638584 - 1) / 1000.
        #expect(Envelope.seconds(for: 0) == 0)
        #expect(near(Envelope.seconds(for: 1), 1))
        #expect(near(Envelope.seconds(for: 0.5), 0.030638584, 1e-9))
        #expect(Envelope.seconds(for: 2) == Envelope.seconds(for: 1))
    }

    @Test func attackRampsUpLinearly() throws {
        // Attack value 0.5 -> 30.638584 ms. At 15 ms: 15 / 30.638584 = 0.489577.
        let timeline = try render(HapticPattern(events: [.continuous(at: 0, duration: 0.1, intensity: 0.8, attack: 0.5)]))
        #expect(timeline.intensity[0] == 0)
        #expect(near(timeline.intensity[15], 0.8 * 15 / 30.638584, 1e-6))
        #expect(timeline.intensity[31] == 0.8)
    }

    @Test func releaseRampsDownToTheEventEnd() throws {
        // Release 0.5 -> 30.638584 ms before the 100 ms end. At 90 ms: 10 / 30.638584 = 0.326386.
        let timeline = try render(HapticPattern(events: [.continuous(at: 0, duration: 0.1, intensity: 1, release: 0.5)]))
        #expect(timeline.intensity[69] == 1)
        #expect(near(timeline.intensity[90], 10 / 30.638584, 1e-6))
        #expect(timeline.intensity[100] == 0)
    }

    @Test func unsustainedEventsDecayAfterTheirAttack() throws {
        // No attack; decay 0.5 -> 30.638584 ms: at 10 ms, 1 - 10 / 30.638584 = 0.673614; gone by 31 ms.
        let decaying = try render(HapticPattern(events: [.continuous(at: 0, duration: 0.1, intensity: 1, decay: 0.5, sustained: false)]))
        #expect(decaying.intensity[0] == 1)
        #expect(near(decaying.intensity[10], 1 - 10 / 30.638584, 1e-6))
        #expect(decaying.intensity[31] == 0 && decaying.intensity[60] == 0)
        // Sustained (the default) ignores the decay time and holds.
        let held = try render(HapticPattern(events: [.continuous(at: 0, duration: 0.1, intensity: 1, decay: 0.5, sustained: true)]))
        #expect(held.intensity[60] == 1)
    }

    @Test func attackAndReleaseShrinkInProportionWhenTheyOverlap() {
        // 1 s attack and 1 s release in a 0.5 s event -> 0.25 s each.
        let envelope = Envelope(attack: 1, decay: 0, release: 1, sustained: true, duration: 0.5)
        #expect(envelope.attack == 0.25 && envelope.release == 0.25)
        #expect(envelope.gain(at: 0.25) == 1)
        #expect(envelope.gain(at: 0.125) == 0.5)
    }

    @Test func intensityControlMultipliesAndSharpnessControlAdds() throws {
        let pattern = HapticPattern(
            events: [.continuous(at: 0, duration: 0.1, intensity: 0.8, sharpness: 0.5)],
            parameters: [DynamicParameter(id: .hapticIntensityControl, value: 0.5, time: 0.04),
                         DynamicParameter(id: .hapticSharpnessControl, value: 0.3, time: 0.04),
                         DynamicParameter(id: .hapticSharpnessControl, value: 0.9, time: 0.07)])
        let timeline = try render(pattern)
        #expect(timeline.intensity[39] == 0.8 && timeline.sharpness[39] == 0.5)
        #expect(timeline.intensity[40] == 0.4 && near(timeline.sharpness[40], 0.8))
        // 0.5 + 0.9 = 1.4 is clamped to 1.
        #expect(timeline.sharpness[70] == 1)
    }

    @Test func curvesInterpolateLinearlyFromTheirStartAndHoldTheirLastValue() throws {
        // Curve at 20 ms: points (0 ms, 1) and (40 ms, 0) -> at 30 ms (10 ms in): 0.75.
        let pattern = HapticPattern(
            events: [.continuous(at: 0, duration: 0.1, intensity: 1, sharpness: 0)],
            curves: [ParameterCurve(id: .hapticIntensityControl, time: 0.02,
                                    controlPoints: [.init(time: 0, value: 1), .init(time: 0.04, value: 0)])])
        let timeline = try render(pattern)
        #expect(timeline.intensity[10] == 1)
        #expect(near(timeline.intensity[30], 0.75))
        #expect(near(timeline.intensity[50], 0.25))
        #expect(near(timeline.intensity[60], 0) && timeline.intensity[90] == 0)
    }

    @Test func theMostRecentlyStartedControlGoverns() throws {
        // A parameter at 50 ms replaces the curve still running since 0.
        let pattern = HapticPattern(
            events: [.continuous(at: 0, duration: 0.1, intensity: 1)],
            parameters: [DynamicParameter(id: .hapticIntensityControl, value: 0.2, time: 0.05)],
            curves: [ParameterCurve(id: .hapticIntensityControl, time: 0,
                                    controlPoints: [.init(time: 0, value: 1), .init(time: 0.1, value: 0)])])
        let timeline = try render(pattern)
        #expect(near(timeline.intensity[40], 0.6))
        #expect(timeline.intensity[50] == 0.2 && timeline.intensity[90] == 0.2)
    }

    // CHHapticParameter.h, HapticIntensityControl: "Adjusts the intensity of all
    // active and future haptic events." (Sharpness: see SharpnessControlScopeTests.)
    @Test func intensityControlShapesTransientsAtTheirMoment() throws {
        let pattern = HapticPattern(
            events: [.transient(at: 0.01, intensity: 0.8, sharpness: 0.4), .transient(at: 0.03, intensity: 0.8, sharpness: 0.4)],
            parameters: [DynamicParameter(id: .hapticIntensityControl, value: 0.5, time: 0.02)])
        let timeline = try render(pattern)
        #expect(timeline.transients.map(\.intensity) == [0.8, 0.4])
    }

    @Test func timeControlsLengthenTheEnvelopeFromTheEventStart() throws {
        // Attack 0 + control 0.5 -> 30.638584 ms attack.
        let pattern = HapticPattern(
            events: [.continuous(at: 0, duration: 0.1, intensity: 1)],
            parameters: [DynamicParameter(id: .hapticAttackTimeControl, value: 0.5, time: 0)])
        let timeline = try render(pattern)
        #expect(near(timeline.intensity[15], 15 / 30.638584, 1e-6))
    }

    @Test func overlappingEventsAddIntensityClippedAtOneAndWeighSharpness() throws {
        // 0.3 @ sharpness 1 over 0-100 ms; 0.5 @ sharpness 0.2 over 50-150 ms; 0.4 @ 0.5 over 60-70 ms.
        let pattern = HapticPattern(events: [
            .continuous(at: 0, duration: 0.1, intensity: 0.3, sharpness: 1),
            .continuous(at: 0.05, duration: 0.1, intensity: 0.5, sharpness: 0.2),
            .continuous(at: 0.06, duration: 0.01, intensity: 0.4, sharpness: 0.5),
        ])
        let timeline = try render(pattern)
        // 55 ms: 0.3 + 0.5 = 0.8; sharpness (0.3 * 1 + 0.5 * 0.2) / 0.8 = 0.5.
        #expect(near(timeline.intensity[55], 0.8))
        #expect(near(timeline.sharpness[55], 0.5))
        // 65 ms: 0.3 + 0.5 + 0.4 = 1.2 -> clipped to 1; sharpness (0.3 + 0.1 + 0.2) / 1.2 = 0.5.
        #expect(timeline.intensity[65] == 1)
        #expect(near(timeline.sharpness[65], 0.5))
        // 120 ms: only the second event.
        #expect(timeline.intensity[120] == 0.5 && near(timeline.sharpness[120], 0.2))
    }

    @Test func silentEventsStillSetTheSharpnessOfTheLatestStarted() throws {
        let pattern = HapticPattern(events: [
            .continuous(at: 0, duration: 0.1, intensity: 0, sharpness: 0.3),
            .continuous(at: 0.05, duration: 0.1, intensity: 0, sharpness: 0.7),
        ])
        let timeline = try render(pattern)
        #expect(timeline.sharpness[20] == 0.3 && timeline.sharpness[60] == 0.7)
    }

    @Test func playbackRateScalesEveryTime() throws {
        // At rate 2 an event at 40 ms lasting 20 ms plays from 20 to 30 ms; a transient at 60 ms lands at 30 ms.
        let pattern = HapticPattern(events: [.continuous(at: 0.04, duration: 0.02, intensity: 1), .transient(at: 0.06)])
        let timeline = try render(pattern, playbackRate: 2)
        #expect(timeline.duration == 0.03 && timeline.sampleCount == 31)
        #expect(timeline.intensity[19] == 0 && timeline.intensity[20] == 1 && timeline.intensity[29] == 1)
        #expect(timeline.intensity[30] == 0)
        #expect(timeline.transients.first?.time == 0.03)
    }

    @Test func audioEventsAreCountedNotRendered() throws {
        let pattern = HapticPattern(events: [HapticEvent(type: .audioContinuous, time: 0, duration: 0.05)])
        let timeline = try render(pattern)
        #expect(timeline.audioEventCount == 1)
        #expect(timeline.intensity.allSatisfy { $0 == 0 })
    }

    @Test func badOptionsAndHugeRendersAreTypedErrors() {
        let pattern = HapticPattern(events: [.continuous(at: 3000, duration: 30)])
        #expect(throws: RenderError.invalidPlaybackRate(0)) { try render(pattern, playbackRate: 0) }
        #expect(throws: RenderError.self) { _ = try Renderer.render(pattern, options: .init(sampleRate: .nan)) }
        #expect(throws: RenderError.self) { try render(pattern, rate: 10_000) }
    }
}
