import Testing
@testable import Haptics

/// Does HapticSharpnessControl reach transients? Apple's documents disagree:
///
/// - "Representing haptic patterns in AHAP files", HapticSharpnessControl: "The
///   amount by which to increase or decrease the sharpness of the haptic. The
///   value is between -1 and 1. This dynamic parameter affects only continuous
///   haptics and is applied additively."
/// - CHHapticParameter.h, CHHapticDynamicParameterIDHapticSharpnessControl: "This
///   will adjust the frequency, frequency content (i.e., filtering), or other
///   aspects of all active and future haptic events."
///
/// We follow the AHAP article by default (it is the format's own document, the
/// more specific of the two, and Lofelt's converter writes files that only play
/// as designed under it: its emphasis transients carry their own sharpness beside
/// a sharpness curve meant for the continuous layer). The header's reading is
/// `RenderOptions(sharpnessControl: .allHapticEvents)`.
@Suite struct SharpnessControlScopeTests {
    /// Apple's Close.ahap: a sharpness curve from 0.6 to -0.4 over 0.1 s (then
    /// holding -0.4), an intensity curve from 0 to 1, and "an end transient" at
    /// 0.11 s of intensity 0.9 and sharpness 1.0.
    @Test("on Apple's Close.ahap the end transient keeps sharpness 1.0; under the header's reading it plays at 0.6")
    func closeEndTransientOnARealFile() throws {
        let pattern = try Fixtures.appleSample("Close.ahap").pattern
        let byArticle = try Renderer.render(pattern)
        let byHeader = try Renderer.render(pattern, options: RenderOptions(sharpnessControl: .allHapticEvents))
        #expect(byArticle.transients.map(\.time) == [0.11] && byHeader.transients.map(\.time) == [0.11])
        // Intensity 0.9 × the intensity curve's held last value 1 under both readings.
        #expect(byArticle.transients[0].intensity == 0.9 && byHeader.transients[0].intensity == 0.9)
        #expect(byArticle.transients[0].sharpness == 1.0)
        // 1.0 + (-0.4), the curve's held last value.
        #expect(abs(byHeader.transients[0].sharpness - 0.6) < 1e-12)
        // The continuous event takes the control under both: at 50 ms the curve is
        // at 0.6 + (-0.4 - 0.6) × 0.5 = 0.1, so 0.4 + 0.1 = 0.5.
        #expect(abs(byArticle.sharpness[50] - 0.5) < 1e-12 && byArticle.sharpness == byHeader.sharpness)
        #expect(byArticle.intensity == byHeader.intensity)
    }

    @Test("the scope changes transients only, for parameters as for curves")
    func parametersFollowTheSameScope() throws {
        let pattern = HapticPattern(
            events: [.transient(at: 0.03, intensity: 0.8, sharpness: 0.4)],
            parameters: [DynamicParameter(id: .hapticSharpnessControl, value: -0.3, time: 0.02)])
        #expect(try Renderer.render(pattern).transients[0].sharpness == 0.4)
        let header = try Renderer.render(pattern, options: RenderOptions(sharpnessControl: .allHapticEvents))
        #expect(abs(header.transients[0].sharpness - 0.1) < 1e-12)
    }

    // CHHapticParameter.h: AttackTime "default: 0.0 (shortest attack time)",
    // DecayTime "default: 0.0 (shortest decay time)", ReleaseTime "default: 0.0
    // (shortest release time)", Sustained "Default: 1.0 (sustained,
    // Attack/Release)", AudioPan "Default: 0.0 (panned center)", AudioBrightness
    // "Default: 1.0". It gives no default for HapticIntensity, HapticSharpness,
    // AudioVolume or AudioPitch; the AHAP article only says "If you don't include
    // a parameter, the Core Haptics engine assumes its default value for that
    // event." Those four defaults are ours: full intensity and sharpness (an event
    // with no parameters plays as the strongest, crispest tap), full volume and
    // unshifted pitch.
    @Test("absent parameters take Apple's documented defaults, and ours where Apple documents none")
    func absentParametersTakeTheirDefaults() throws {
        let apples: [EventParameterID: Double] = [
            .attackTime: 0, .decayTime: 0, .releaseTime: 0, .sustained: 1, .audioPan: 0, .audioBrightness: 1,
        ]
        let ours: [EventParameterID: Double] = [.hapticIntensity: 1, .hapticSharpness: 1, .audioVolume: 1, .audioPitch: 0]
        #expect(Set(apples.keys).union(ours.keys) == Set(EventParameterID.allCases))
        for (id, value) in apples.merging(ours, uniquingKeysWith: { a, _ in a }) {
            #expect(id.defaultValue == value && EventParameters()[id] == value, "\(id)")
        }
        let loaded = try load(#"{"Pattern": [{"Event": {"EventType": "HapticContinuous", "EventDuration": 1}}]}"#)
        #expect(loaded.pattern.events[0].parameters == EventParameters())
    }
}
