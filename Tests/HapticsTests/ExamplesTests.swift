import Testing
@testable import Haptics

/// Examples/ holds the seed's three examples with the seed's exact timing (the
/// times its Swift code computes, floating-point digits included).
@Suite struct ExamplesTests {
    @Test func fadeIsTenTransientsOverThreeSecondsFadingFromStrongAndSharp() throws {
        let loaded = try Fixtures.example("Fade.ahap")
        #expect(loaded.warnings.isEmpty)
        let events = loaded.pattern.events
        #expect(events.count == 10 && events.allSatisfy { $0.type == .hapticTransient })
        for (k, event) in events.enumerated() {
            // for i in stride(from: 0, to: 1, by: 0.1): time i * 3, intensity = sharpness = 1 - i.
            let i = Double(k) * 0.1
            #expect(event.time == i * 3)
            #expect(event.parameters.intensity == 1 - i && event.parameters.sharpness == 1 - i)
        }
    }

    @Test func sosIsThreeTapsThreeHalfSecondBuzzesThreeTaps() throws {
        let events = try Fixtures.example("SOS.ahap").pattern.events
        #expect(events.map(\.time) == [0, 0.2, 0.4, 0.6, 1.2, 1.8, 2.4, 2.6, 2.8])
        #expect(events.map(\.type) == [.hapticTransient, .hapticTransient, .hapticTransient,
                                       .hapticContinuous, .hapticContinuous, .hapticContinuous,
                                       .hapticTransient, .hapticTransient, .hapticTransient])
        #expect(events.compactMap(\.duration) == [0.5, 0.5, 0.5])
        #expect(events.allSatisfy { $0.parameters == EventParameters() })
    }

    @Test func beethovensFifthFollowsTheSeedsBeatArithmetic() throws {
        let events = try Fixtures.example("Beethoven5.ahap").pattern.events
        let beat = 0.156, breath = 0.01
        let secondPassage = (beat * 4) + breath + (beat * 4 * 2.3) + (beat * 5.1)
        let expectedTimes = [0, beat, beat * 2, beat * 3, beat * 4 + breath,
                             secondPassage, secondPassage + beat, secondPassage + beat * 2, secondPassage + beat * 3,
                             secondPassage + beat * 4 + breath]
        #expect(events.map(\.time) == expectedTimes)
        #expect(events.compactMap(\.duration) == [beat * 4 * 2.3, beat * 4 * 2.3])
        #expect(events[0].parameters.intensity == 0.3 && events[0].parameters.sharpness == 0.3)
        #expect(events[5].parameters.intensity == 0.3 && events[1].parameters.intensity == 1)
    }
}
