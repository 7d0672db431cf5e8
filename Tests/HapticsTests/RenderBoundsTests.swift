import Testing
@testable import Haptics

/// The renderer's work is bounded before it starts, not only its output's size.
@Suite struct RenderBoundsTests {
    @Test("99,999 overlapping 4.9 s events at 1 MHz are refused before any work: the summed event samples name the limit")
    func overlappingEventsAtAHighRateAreRefused() {
        // Every limit on its own holds: 99,999 entries (< 100,000), 4,900,001
        // samples (< 5 M). The work does not: each event covers 4.9 M samples.
        let pattern = HapticPattern(events: Array(repeating: .continuous(at: 0, duration: 4.9, intensity: 0.5), count: 99_999))
        #expect(throws: RenderError.tooMuchWork(eventSamples: 489_995_100_000, limit: 100_000_000)) {
            try Renderer.render(pattern, options: RenderOptions(sampleRate: 1_000_000))
        }
        #expect(RenderError.tooMuchWork(eventSamples: 489_995_100_000, limit: 100_000_000).description
            == "rendering would compute 489995100000 samples of continuous events (each event's samples, summed over events that overlap); the limit is 100000000 (lower the sample rate, or use fewer overlapping events)")
    }

    @Test("the bound is the exact count of event samples: at the limit it renders, one below it refuses")
    func theBoundIsExact() throws {
        // Three events of 100, 200 and 50 samples at 1 kHz; two overlap.
        let pattern = HapticPattern(events: [
            .continuous(at: 0, duration: 0.1), .continuous(at: 0.05, duration: 0.2), .continuous(at: 0.3, duration: 0.05),
            .transient(at: 0.2),
        ])
        #expect(try Renderer.render(pattern, options: RenderOptions(maxEventSamples: 350)).sampleCount == 351)
        #expect(throws: RenderError.tooMuchWork(eventSamples: 350, limit: 349)) {
            try Renderer.render(pattern, options: RenderOptions(maxEventSamples: 349))
        }
    }

    @Test("times far beyond any file's limit are refused as too many samples, never trap")
    func hugeTimesAreRefusedNotTrapped() {
        let far = HapticPattern(events: [.continuous(at: 1e300, duration: 1)], parameters: [
            DynamicParameter(id: .hapticIntensityControl, value: 0.5, time: 1e300),
        ])
        #expect(throws: RenderError.tooManySamples(needed: 1e303, limit: 5_000_000)) { try Renderer.render(far) }
        #expect(RenderError.tooManySamples(needed: 1e303, limit: 5_000_000).description.hasPrefix("rendering would need 1e+303 samples"))
    }
}
