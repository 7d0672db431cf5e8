import Testing
@testable import Haptics

/// One definition of a pattern's length, used by rendering and by every player.
///
/// CHHapticPattern.h: "Pattern duration is calculated as the start time of the
/// pattern's last event or parameter, plus that event's duration if present."
@Suite struct PatternDurationTests {
    @Test("a parameter counts by its time and a curve by its start, not by its last control point")
    func parametersAndCurvesCountByTheirStart() {
        let pattern = HapticPattern(
            events: [.transient(at: 0.9), .continuous(at: 0.1, duration: 0.5)],
            parameters: [DynamicParameter(id: .hapticIntensityControl, value: 1, time: 0.7)],
            curves: [ParameterCurve(id: .hapticSharpnessControl, time: 0.2,
                                    controlPoints: [.init(time: 0, value: 0), .init(time: 1.3, value: 1)])])
        // Last of: transient at 0.9, continuous end 0.6, parameter 0.7, curve start 0.2
        // (its last point, at 1.5, does not count).
        #expect(pattern.duration == 0.9)
        #expect(HapticPattern(events: [], curves: pattern.curves).duration == 0.2)
    }

    @Test("an event counts by its end even when a later one starts before it ends")
    func theLatestEndingEventCounts() {
        // Read literally, "the last event" would be the transient at 0.5 and cut the
        // 2 s continuous event short; the pattern plays every event to its end.
        let pattern = HapticPattern(events: [.continuous(at: 0, duration: 2), .transient(at: 0.5)])
        #expect(pattern.duration == 2)
    }

    @Test("Apple's Recharge.ahap lasts 1.5 s although its curve's last point is at 1.50001 s")
    func appleRechargeLastsAsItsEvent() throws {
        let pattern = try Fixtures.appleSample("Recharge.ahap").pattern
        #expect(pattern.curves[0].controlPoints.last?.time == 1.50001)
        #expect(pattern.duration == 1.5)
        #expect(try Renderer.render(pattern).sampleCount == 1501)
    }

    // CHHapticEvent.h, CHHapticEventTypeHapticTransient: "If a duration longer than
    // the haptic is provided, the pattern containing the event will be "padded" out
    // to the duration specified." And for initWithEventType:…duration: "For
    // Transient event types, the logical length of the event (used to determine
    // pattern end and loop points)."
    @Test("a transient's EventDuration is kept, pads the pattern and survives a round trip, without a warning")
    func transientDurationPadsThePattern() throws {
        let loaded = try load(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 0.1, "EventDuration": 0.5}}]}"#)
        #expect(loaded.warnings.isEmpty)
        let event = try #require(loaded.pattern.events.first)
        #expect(event.duration == 0.5 && event.endTime == 0.6)
        #expect(loaded.pattern.duration == 0.6)
        let timeline = try Renderer.render(loaded.pattern)
        #expect(timeline.duration == 0.6 && timeline.sampleCount == 601)
        // Still one impulse: the logical length does not make the tap longer.
        #expect(timeline.transients.count == 1 && timeline.intensity.allSatisfy { $0 == 0 })
        let reread = try AHAPReader.read(AHAPWriter.string(loaded.pattern))
        #expect(reread.pattern == loaded.pattern && reread.warnings.isEmpty)
    }

    @Test("a negative transient EventDuration is clamped to 0 with a warning, as out-of-range values are")
    func negativeTransientDurationIsClamped() throws {
        let loaded = try load(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 0.1, "EventDuration": -1}}]}"#)
        #expect(loaded.pattern.events[0].duration == 0 && loaded.pattern.duration == 0.1)
        #expect(loaded.warnings.map(\.description) == ["warning: Pattern[0].Event.EventDuration: negative EventDuration -1 clamped to 0"])
    }

    @Test("an event may not end past the one-hour limit, as a curve may not")
    func eventsEndingPastTheTimeLimitAreRefused() {
        #expect(loadError(#"{"Pattern": [{"Event": {"EventType": "HapticContinuous", "Time": 3590, "EventDuration": 30}}]}"#)?.description
            == "Pattern[0].Event.EventDuration: the event ends at 3620 s, beyond the 3600 s limit")
        #expect(loadError(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 3000, "EventDuration": 700}}]}"#)?.path
            == "Pattern[0].Event.EventDuration")
        #expect(loadError(#"{"Pattern": [{"Event": {"EventType": "HapticContinuous", "Time": 3570, "EventDuration": 30}}]}"#) == nil)
    }
}
