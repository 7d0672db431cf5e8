import Foundation
import Testing
@testable import Haptics

/// Our .haptic import against Meta's own converter (meta-haptics-sdk,
/// `core/haptic_data/src/ahap.rs`): each of Meta's test files and the AHAP Meta's
/// tests expect from it (`Tests/Fixtures/meta-haptics-sdk/`), played the way Meta
/// plays its output, as a `SplitAhap` on two players: the continuous pattern with its
/// curves, and the transients on a player of their own.
@Suite struct MetaConversionTests {
    /// Meta's `compare_haptic_with_ahap` pairs, every one of them.
    static let pairs = ["2_points", "3_points", "16_points", "17_points", "long_clip", "multiple_emphasis", "valid_v1"]

    /// Meta writes every value and time as a 32-bit float (about 6e-8 relative) and
    /// takes square roots in 32 bits; we compute in 64. Its own tests compare to
    /// 1e-7 (`DELTA_ERR`); over a rendered trace 1e-6 still catches any mapping
    /// difference (the smallest deliberate step in these files is 0.01).
    static let tolerance = 1e-6

    /// Meta's expected AHAP as its player plays it: split, each part on its own player.
    /// Its control-point times are absolute (its curves' Time is their first point's).
    static func metaTimeline(_ name: String) throws -> Timeline {
        let (continuous, transients) = try Fixtures.metaFile("\(name).ahap", curveTimes: .absolute).pattern.splitForSeparatePlayers()
        var timeline = try Renderer.render(continuous)
        if let transients {
            // Pad the transients' own player to the continuous one's length: only its
            // transients are compared, and the sample grid must be the same.
            timeline.transients = try Renderer.render(transients).transients
        }
        return timeline
    }

    @Test("each of Meta's test .haptic files imports as Meta's expected AHAP plays: traces and transients within 1e-6", arguments: pairs)
    func importPlaysAsMetasExpectedAHAP(_ name: String) throws {
        let ours = try Renderer.render(try Fixtures.metaFile("\(name).haptic").pattern)
        let theirs = try Self.metaTimeline(name)
        let difference = LofeltImportTests.compare(ours, theirs)
        #expect(difference.sampleCountDelta == 0, "\(name): \(difference)")
        #expect(difference.intensity <= Self.tolerance, "\(name): \(difference)")
        #expect(difference.sharpness <= Self.tolerance, "\(name): \(difference)")
        #expect(difference.transientValue <= Self.tolerance, "\(name): \(difference)")
        #expect(difference.transientsOnlyOurs.isEmpty && difference.transientsOnlyTheirs.isEmpty, "\(name): \(difference)")
        #expect(ours.transients.count == theirs.transients.count, "\(name)")
    }

    @Test("multiple_emphasis: transients at 0.7745967 under an intensity curve at 0.3577709 keep 0.7745967 (it was 0.277)")
    func emphasisKeepsItsOwnIntensity() throws {
        let pattern = try Fixtures.metaFile("multiple_emphasis.haptic").pattern
        #expect(pattern.transientPlayback == .apart)
        let curve = try #require(pattern.curves.first { $0.id == .hapticIntensityControl })
        #expect(abs(curve.value(at: 0) - 0.3577709) < Self.tolerance)
        let timeline = try Renderer.render(pattern)
        #expect(timeline.transients.count == 18)
        #expect(timeline.transients.allSatisfy { abs($0.intensity - 0.7745967) < Self.tolerance && abs($0.sharpness - 0.7) < 1e-12 })
        // Played as one Core Haptics pattern (the old import), the curve scales it down.
        var together = pattern
        together.transientPlayback = .underPatternControls
        let scaled = try Renderer.render(together).transients[0].intensity
        #expect(abs(scaled - 0.7745967 * 0.3577709) < Self.tolerance)
    }

    @Test("splitting Meta's valid_v1.ahap gives Meta's valid_v1_continuous.ahap and valid_v1_transients.ahap; 3_points has no transients")
    func splitMatchesMetasSplitFiles() throws {
        let (continuous, transients) = try Fixtures.metaFile("valid_v1.ahap", curveTimes: .absolute).pattern.splitForSeparatePlayers()
        let expectedContinuous = try Fixtures.metaFile("valid_v1_continuous.ahap", curveTimes: .absolute).pattern
        let expectedTransients = try Fixtures.metaFile("valid_v1_transients.ahap", curveTimes: .absolute).pattern
        #expect(transients == expectedTransients)
        // valid_v1.ahap writes the event's duration as a 32-bit float, the split file in full.
        let difference = LofeltImportTests.compare(try Renderer.render(continuous), try Renderer.render(expectedContinuous))
        #expect(difference.sampleCountDelta == 0 && difference.intensity <= Self.tolerance && difference.sharpness <= Self.tolerance)
        #expect(continuous.events.allSatisfy { $0.type == .hapticContinuous } && continuous.curves.count == 2)

        let (alone, none) = try Fixtures.metaFile("3_points.ahap", curveTimes: .absolute).pattern.splitForSeparatePlayers()
        #expect(none == nil)
        #expect(alone == (try Fixtures.metaFile("3_points_continuous.ahap", curveTimes: .absolute).pattern))
    }

    @Test("the import written as Meta's AHAP pair and read back plays as the import")
    func writtenPairReadsBack() throws {
        for name in Self.pairs {
            let imported = try Fixtures.metaFile("\(name).haptic").pattern
            let (continuous, transients) = imported.splitForSeparatePlayers()
            let readContinuous = try AHAPReader.read(AHAPWriter.string(continuous))
            #expect(readContinuous.pattern == continuous, "\(name)")
            // Relative control-point times: nothing to warn about.
            #expect(readContinuous.warnings.allSatisfy { !$0.message.contains("--curve-times") }, "\(name)")
            if let transients { #expect(try AHAPReader.read(AHAPWriter.string(transients)).pattern == transients, "\(name)") }
            var timeline = try Renderer.render(readContinuous.pattern)
            timeline.transients = try transients.map { try Renderer.render($0).transients } ?? []
            let difference = LofeltImportTests.compare(try Renderer.render(imported), timeline)
            #expect(difference.intensity == 0 && difference.sharpness == 0 && difference.transientValue == 0, "\(name): \(difference)")
        }
    }

    @Test("a pattern's controls do not reach transients played apart, whatever the sharpness scope; continuous events still take them")
    func controlsDoNotReachTransientsPlayedApart() throws {
        var pattern = HapticPattern(
            events: [.continuous(at: 0, duration: 0.1, intensity: 1, sharpness: 0.2), .transient(at: 0.05, intensity: 0.9, sharpness: 0.3)],
            parameters: [.init(id: .hapticIntensityControl, value: 0.5, time: 0), .init(id: .hapticSharpnessControl, value: 0.4, time: 0)])
        pattern.transientPlayback = .apart
        for scope in [RenderOptions.SharpnessControlScope.continuousEvents, .allHapticEvents] {
            let timeline = try Renderer.render(pattern, options: RenderOptions(sharpnessControl: scope))
            #expect(timeline.transients.map(\.intensity) == [0.9] && timeline.transients.map(\.sharpness) == [0.3])
            #expect(timeline.intensity[50] == 0.5 && abs(timeline.sharpness[50] - 0.6) < 1e-12)
        }
    }

    /// Every emphasis transient of every .haptic file we hold (Lofelt's test data and
    /// library, Meta's test data): its rendered intensity over the intensity its
    /// emphasis asks for (√ emphasis amplitude, the transient event's own). With
    /// `asOneCoreHapticsPattern` the transients are put back under the pattern's
    /// controls: the import before Meta's split, which differed in nothing else.
    static func emphasisRatios(asOneCoreHapticsPattern: Bool = false) throws -> (files: Int, ratios: [Double]) {
        let invalid = Set(LofeltImportTests.invalidFiles.map(\.file))
        let files = (Fixtures.interopHaptic + Fixtures.metaHaptic).filter { !invalid.contains($0.lastPathComponent) }
        var ratios: [Double] = []
        for file in files {
            var pattern = try LofeltHapticReader.read(Fixtures.bytes(file)).pattern
            if asOneCoreHapticsPattern { pattern.transientPlayback = .underPatternControls }
            for transient in try Renderer.render(pattern).transients {
                let intended = pattern.events[transient.eventIndex].parameters.intensity
                if intended > 0 { ratios.append(transient.intensity / intended) }
            }
        }
        return (files.count, ratios.sorted())
    }

    static func summary(_ measured: (files: Int, ratios: [Double])) -> String {
        let r = measured.ratios
        guard !r.isEmpty else { return "no emphasis transients" }
        let median = r.count % 2 == 1 ? r[r.count / 2] : (r[r.count / 2 - 1] + r[r.count / 2]) / 2
        return "\(r.count) emphasis transients in \(measured.files) .haptic files, rendered / intended intensity: "
            + "median \(String(format: "%.4f", median)), min \(String(format: "%.4f", r[0])), max \(String(format: "%.4f", r[r.count - 1]))"
    }

    @Test("every emphasis transient of every .haptic file renders at the intensity its emphasis asks for (median ratio 1; 0.25 under the curves)")
    func emphasisRatioOverEveryFile() throws {
        let after = try Self.emphasisRatios()
        let before = try Self.emphasisRatios(asOneCoreHapticsPattern: true)
        print("before (one pattern, transients under the curves): \(Self.summary(before))")
        print("after (Meta's split, transients apart): \(Self.summary(after))")
        #expect(after.ratios.count > 2000 && after.ratios.count == before.ratios.count)
        #expect(after.ratios.allSatisfy { abs($0 - 1) < 1e-12 })
        #expect(before.ratios[before.ratios.count / 2] < 0.5)
    }
}
