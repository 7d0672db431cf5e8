import Foundation
import Testing
@testable import Haptics

@Suite struct LofeltImportTests {
    /// .haptic files and the AHAP that Lofelt's own haptic2ahap made from each.
    /// (ahap_from_valid_v0.ahap was converted from a v0 file that is not in
    /// interop/, so it has no pair here; it is covered by the AHAP interop test.)
    static let pairs: [(haptic: String, ahap: String)] = [
        ("2_points.haptic", "2_points.ahap"),
        ("3_points.haptic", "3_points.ahap"),
        ("16_points.haptic", "16_points.ahap"),
        ("17_points.haptic", "17_points.ahap"),
        ("long_clip.haptic", "long_clip.ahap"),
        ("valid_v1.haptic", "valid_v1.ahap"),
        ("valid_v1.haptic", "ahap_from_valid_v1.ahap"),
        ("valid_required_v1.haptic", "ahap_from_valid_v1_required.ahap"),
        ("valid_v1_multiple_emphasis.haptic", "valid_v1_multiple_transients.ahap"),
        ("valid_v1_from_v0_from_dsp.haptic", "ahap_from_valid_v0_from_dsp.ahap"),
    ]

    struct Difference: CustomStringConvertible {
        var samples: Int
        var sampleCountDelta: Int
        var intensity: Double
        var sharpness: Double
        var transientsOnlyOurs: [Double]
        var transientsOnlyTheirs: [Double]
        var transientValue: Double
        var description: String {
            "n=\(samples) Δn=\(sampleCountDelta) ΔI=\(intensity) ΔS=\(sharpness) ours-only=\(transientsOnlyOurs) theirs-only=\(transientsOnlyTheirs) Δtransient=\(transientValue)"
        }
    }

    static func compare(_ ours: Timeline, _ theirs: Timeline) -> Difference {
        let n = min(ours.sampleCount, theirs.sampleCount)
        var dI = 0.0, dS = 0.0
        for k in 0..<n {
            dI = max(dI, abs(ours.intensity[k] - theirs.intensity[k]))
            dS = max(dS, abs(ours.sharpness[k] - theirs.sharpness[k]))
        }
        var onlyOurs: [Double] = [], onlyTheirs = theirs.transients, dT = 0.0
        for transient in ours.transients {
            if let match = onlyTheirs.firstIndex(where: { abs($0.time - transient.time) < 1e-6 }) {
                dT = max(dT, abs(onlyTheirs[match].intensity - transient.intensity),
                         abs(onlyTheirs[match].sharpness - transient.sharpness))
                onlyTheirs.remove(at: match)
            } else {
                onlyOurs.append(transient.time)
            }
        }
        return Difference(samples: n, sampleCountDelta: ours.sampleCount - theirs.sampleCount,
                          intensity: dI, sharpness: dS, transientsOnlyOurs: onlyOurs,
                          transientsOnlyTheirs: onlyTheirs.map(\.time), transientValue: dT)
    }

    /// Lofelt writes every value and time as a 32-bit float (24-bit mantissa, so
    /// about 6e-8 relative) and takes square roots in 32 bits; we compute in 64.
    /// The worst difference measured over these pairs is 5.4e-8. 1e-6 leaves an
    /// 18x margin and still catches any real mapping difference: the smallest
    /// deliberate step in these files is 0.01.
    static let tolerance = 1e-6

    static func renderPair(_ pair: (haptic: String, ahap: String), curveTimes: AHAPReader.ControlPointTimes = .absolute) throws -> Difference {
        let ours = try Renderer.render(Fixtures.haptic(pair.haptic).pattern)
        var converted = try AHAPReader.read(
            Fixtures.bytes(Fixtures.interop.appendingPathComponent("ahap/\(pair.ahap)")),
            options: .init(controlPointTimes: curveTimes)).pattern
        // Played as Meta's SDK plays a converted file: its transients on a player of
        // their own, apart from the curves (MetaConversionTests).
        converted.transientPlayback = .apart
        return compare(ours, try Renderer.render(converted))
    }

    @Test(arguments: pairs.indices)
    func ourImportRendersLikeLofeltsOwnConversion(_ index: Int) throws {
        let pair = Self.pairs[index]
        let difference = try Self.renderPair(pair)
        #expect(difference.sampleCountDelta == 0, "\(pair)")
        #expect(difference.intensity <= Self.tolerance, "\(pair): \(difference)")
        #expect(difference.sharpness <= Self.tolerance, "\(pair): \(difference)")
        #expect(difference.transientValue <= Self.tolerance, "\(pair): \(difference)")
        #expect(difference.transientsOnlyTheirs.isEmpty, "\(pair): \(difference)")
        // haptic2ahap drops the emphasis of the first breakpoint; we keep it.
        let firstBreakpointEmphasis = pair.haptic == "valid_v1_multiple_emphasis.haptic"
        #expect(difference.transientsOnlyOurs == (firstBreakpointEmphasis ? [0] : []), "\(pair): \(difference)")
    }

    @Test func lofeltAHAPReadByCoreHapticsRuleShiftsLaterCurves() throws {
        // Documented divergence: read with Core Haptics' relative control-point times,
        // haptic2ahap's files play their later curve chunks late.
        let difference = try Self.renderPair(("valid_v1.haptic", "valid_v1.ahap"), curveTimes: .relativeToCurve)
        #expect(difference.sharpness > 0.1)
    }

    @Test func conversionFollowsLofeltsMapping() throws {
        let pattern = try LofeltHapticReader.read("""
            {"version": {"major": 1, "minor": 0, "patch": 0},
             "metadata": {"project": "p", "author": "a", "description": "d", "editor": "e", "source": "", "tags": ["x"]},
             "signals": {"continuous": {"envelopes": {
               "amplitude": [{"time": 0, "amplitude": 0.25}, {"time": 0.5, "amplitude": 0.16, "emphasis": {"amplitude": 0.81, "frequency": 0.3}},
                             {"time": 40, "amplitude": 1}],
               "frequency": [{"time": 0, "frequency": 0.64}]}}}}
            """).pattern
        #expect(pattern.metadata["Project"] == "p" && pattern.metadata["Created"] == "a")
        // Continuous events of intensity 1 and sharpness 0, split at 30 s.
        #expect(pattern.events.filter { $0.type == .hapticContinuous }.map { [$0.time, $0.duration!] } == [[0, 30], [30, 10]])
        // √amplitude, ducked to 80% where the breakpoint has an emphasis.
        let intensity = try #require(pattern.curves.first { $0.id == .hapticIntensityControl })
        #expect(intensity.controlPoints == [.init(time: 0, value: 0.5), .init(time: 0.5, value: 0.4 * 0.8), .init(time: 40, value: 1)])
        #expect(pattern.curves.first { $0.id == .hapticSharpnessControl }?.controlPoints == [.init(time: 0, value: 0.8)])
        // The emphasis as a transient: √amplitude, and the frequency as sharpness.
        let transient = try #require(pattern.events.first { $0.type == .hapticTransient })
        #expect(transient.time == 0.5 && abs(transient.parameters.intensity - 0.9) < 1e-12 && transient.parameters.sharpness == 0.3)
    }

    @Test func curvesSplitAtSixteenPointsAndShareTheirJoiningPoint() {
        let points = (0..<20).map { (time: Double($0), value: Double($0) / 20) }
        let curves = LofeltHapticReader.curves(id: .hapticIntensityControl, points: points)
        #expect(curves.map(\.controlPoints.count) == [16, 5])
        #expect(curves[1].time == 15)
        #expect(curves[1].controlPoints.first == .init(time: 0, value: 0.75))
        #expect(curves[1].controlPoints.last == .init(time: 4, value: 0.95))
    }

    /// Each file of the format's own validation suite, and the rule it breaks.
    static let invalidFiles: [(file: String, path: String, rule: String)] = [
        ("invalid_fields_v1.haptic", "signals", "required: the signals object"),
        ("invalid_version_v1.haptic", "version.major", "version 2 is not supported; this reader knows data model v1"),
        ("truncate_before_1_bp.haptic", "signals.continuous.envelopes.amplitude",
         "the amplitude envelope must contain at least two breakpoints, found 1"),
        ("validation_v1_amplitude.haptic", "signals.continuous.envelopes.amplitude[3].amplitude", "amplitude 1.5 is outside 0…1"),
        ("validation_v1_emphasis_amplitude.haptic", "signals.continuous.envelopes.amplitude[2].emphasis.amplitude",
         "an emphasis may not be weaker than its breakpoint (0.2 < 0.5)"),
        ("validation_v1_emphasis_amplitude_range.haptic", "signals.continuous.envelopes.amplitude[2].emphasis.amplitude",
         "emphasis amplitude -0.2 is outside 0…1"),
        ("validation_v1_emphasis_frequency_range.haptic", "signals.continuous.envelopes.amplitude[2].emphasis.frequency",
         "emphasis frequency 1.1 is outside 0…1"),
        ("validation_v1_sequence.haptic", "signals.continuous.envelopes.amplitude[2].time",
         "breakpoint times must not decrease (0.1 after 0.2)"),
    ]

    @Test(arguments: invalidFiles.indices)
    func invalidFilesFailWithThePathAndRuleTheyBreak(_ index: Int) {
        let expected = Self.invalidFiles[index]
        #expect(throws: PatternLoadError(path: expected.path, rule: expected.rule)) {
            try Fixtures.haptic(expected.file)
        }
    }

    @Test func everyOtherInteropHapticFileLoadsAndRenders() throws {
        let invalid = Set(Self.invalidFiles.map(\.file))
        let files = Fixtures.interopHaptic.filter { !invalid.contains($0.lastPathComponent) }
        #expect(files.count == 156)
        for file in files {
            let loaded = try LofeltHapticReader.read(Fixtures.bytes(file))
            let timeline = try Renderer.render(loaded.pattern)
            #expect(timeline.sampleCount > 0, "\(file.lastPathComponent)")
        }
    }

    @Test func unknownKeysWarnWithTheirPath() throws {
        let loaded = try Fixtures.haptic("v1_additional_fields.haptic")
        #expect(loaded.warnings.map(\.path).contains("signals.additional_signal"))
        #expect(loaded.warnings.allSatisfy { $0.kind == .ignoredKey })
    }
}
