import DRV2605
import DRV2605Model
import Testing

/// The synthesised waveforms follow their names (they are ours, not TI's).
struct ROMSynthesisTests {
    func effect(_ id: UInt8) -> ROMEffect { ROMEffect.named(ROMEffectID(rawValue: id))! }

    @Test func aClickIsAShortFullDriveThenABrake() {
        let s = ROMSynthesis.segments(for: effect(1))
        #expect(s.count == 2)
        #expect(s[0].kind == .drive(automaticOverdriveAndBrake: true) && s[0].level == 1 && s[0].microseconds == 25_000)
        #expect(s[1].kind == .brake)
    }

    @Test func aTripleClickHasThreeDrivesWithGaps() {
        let s = ROMSynthesis.segments(for: effect(12))
        #expect(s.filter { if case .drive = $0.kind { true } else { false } }.count == 3)
        #expect(s.filter { $0.kind == .idle }.count == 2)
    }

    @Test func aRampUpRisesMonotonicallyToItsTarget() {
        let levels = ROMSynthesis.segments(for: effect(82)).filter { if case .drive = $0.kind { true } else { false } }.map(\.level)
        #expect(levels.first == 0 && levels.last == 1)
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func smoothHumHasNoKickAndNoBrake() {
        let s = ROMSynthesis.segments(for: effect(119))
        #expect(s == [Segment(kind: .drive(automaticOverdriveAndBrake: false), level: 0.5, microseconds: 500_000)])
    }

    @Test func oneMillisecondPlaybackIntervalRunsFiveTimesFaster() {
        var timing = SynthesisTiming()
        timing.playbackScale = 0.2
        #expect(ROMSynthesis.segments(for: effect(14), timing: timing)[0].microseconds == 50_000)
    }

    @Test func overdriveOffsetLengthensOnlyTheFirstDrive() {
        var timing = SynthesisTiming()
        timing.overdriveOffset = 10_000  // ODT = 2 (x 5 ms)
        let s = ROMSynthesis.segments(for: effect(10), timing: timing)  // double click
        #expect(s[0].microseconds == 35_000)
        #expect(s[3].microseconds == 25_000)
    }

    @Test func timeOffsetRegistersAreSignedFiveMillisecondSteps() {
        #expect(TimeOffsetRegister(address: .overdriveTimeOffset, rawValue: 0x02).offsetMicroseconds == 10_000)
        #expect(TimeOffsetRegister(address: .brakeTimeOffset, rawValue: 0xFF).offsetMicroseconds == -5_000)
    }
}
