/// Imports Meta Haptics Studio / Lofelt `.haptic` files (data model v1).
///
/// Validation follows Meta's own reader rule for rule (listed on
/// `LofeltDataModel`). The text is strict JSON, as serde_json, Meta's parser,
/// requires: a trailing comma is an error here, unlike in an AHAP.
///
/// The conversion is the one Meta's SDK performs (meta-haptics-sdk
/// `core/haptic_data/src/ahap.rs`, `Ahap::from(HapticData)` then `SplitAhap`), so
/// files play as Meta's player plays them through Core Haptics:
/// - continuous events of intensity 1 and sharpness 0, split every 30 s;
/// - intensity = √amplitude as HapticIntensityControl curves (ducked to 80% at a
///   breakpoint with emphasis, so the emphasis stands out), sharpness = √frequency
///   as HapticSharpnessControl curves;
/// - each emphasis as a transient of intensity √(emphasis amplitude) and
///   sharpness = emphasis frequency, played apart from the curves
///   (`HapticPattern.TransientPlayback.apart`): Meta loads its continuous and
///   transient AHAPs into two players, so the intensity curve does not scale the
///   emphasis (on Meta's multiple_emphasis.haptic a transient plays at 0.7746, not
///   0.7746 × 0.3578).
/// Two deliberate differences in form, none in what plays: each curve holds at most
/// 16 points, consecutive curves sharing their joining point (Core Haptics appears
/// to play no more; Meta writes one curve), and control-point times are relative to
/// their curve (Core Haptics' rule; Meta's and Lofelt's converters write absolute
/// times, which read the same only where a curve starts at 0). Lofelt's older
/// haptic2ahap also skipped the first breakpoint's emphasis; Meta's converter and
/// this one keep it.
public enum LofeltHapticReader {
    /// Meta's validator has two modes (`v1::ValidationMode`); they differ in one
    /// rule, whether a frequency breakpoint may lie outside the amplitude envelope.
    public enum Validation: Sendable {
        /// How Meta's tools open a file (Haptics Studio's `haptic_data_from_json`
        /// and `validate_json_string` use `ValidationMode::LegacyCompatibility`):
        /// such breakpoints load, with a warning here. Meta: "Some rules are not
        /// validated, to stay compatible with .haptic files that were created with
        /// earlier versions of Haptics Studio, which created invalid haptic data."
        /// 23 of the 131 effects in Meta's own haptic library need it.
        case legacyCompatibility
        /// `ValidationMode::Strict`: "Validation will fail if any rule check fails."
        case strict
    }

    static let maxPointsPerCurve = ParameterCurve.corePlayableControlPoints
    static let emphasisDucking = 0.8

    public static func read(
        _ bytes: [UInt8], validation: Validation = .legacyCompatibility, limits: PatternLimits = PatternLimits()
    ) throws(PatternLoadError) -> LoadedPattern {
        let text = try PatternText.parse(bytes, limits: limits.json, trailingCommas: .rejected)
        var warnings = text.warnings
        let model = try LofeltDataModel.decode(JSONCursor(root: text.value), validation: validation, limits: limits, warnings: &warnings)
        return LoadedPattern(pattern: convert(model), warnings: warnings)
    }

    public static func read(
        _ text: String, validation: Validation = .legacyCompatibility, limits: PatternLimits = PatternLimits()
    ) throws(PatternLoadError) -> LoadedPattern {
        try read(Array(text.utf8), validation: validation, limits: limits)
    }

    static func convert(_ model: LofeltDataModel) -> HapticPattern {
        var pattern = HapticPattern(events: [], transientPlayback: .apart)
        pattern.metadata = HapticPattern.Metadata(
            project: model.project, created: model.author, description: model.description)

        pattern.curves += curves(
            id: .hapticIntensityControl,
            points: model.amplitude.map { point in
                (point.time, point.amplitude.squareRoot() * (point.emphasis == nil ? 1 : emphasisDucking))
            })
        pattern.curves += curves(
            id: .hapticSharpnessControl, points: model.frequency.map { ($0.time, $0.frequency.squareRoot()) })

        var remaining = model.amplitude.last?.time ?? 0
        var start = 0.0
        while remaining > 0 {
            let length = min(remaining, HapticEvent.maximumContinuousDuration)
            pattern.events.append(.continuous(at: start, duration: length, intensity: 1, sharpness: 0))
            start += length
            remaining -= length
        }
        for point in model.amplitude {
            guard let emphasis = point.emphasis else { continue }
            pattern.events.append(.transient(
                at: point.time, intensity: emphasis.amplitude.squareRoot(), sharpness: emphasis.frequency))
        }
        return pattern
    }

    /// Splits breakpoints into curves of at most 16 points, each starting at the
    /// point where the previous one ended so the joins are continuous.
    static func curves(id: DynamicParameterID, points: [(time: Double, value: Double)]) -> [ParameterCurve] {
        guard let first = points.first else { return [] }
        var result: [ParameterCurve] = []
        var anchor = first
        var index = 1
        repeat {
            let chunk = points[index..<min(points.count, index + maxPointsPerCurve - 1)]
            var controlPoints = [ParameterCurve.ControlPoint(time: 0, value: anchor.value)]
            for point in chunk {
                controlPoints.append(.init(time: point.time - anchor.time, value: point.value))
            }
            result.append(ParameterCurve(id: id, time: anchor.time, controlPoints: controlPoints))
            if let last = chunk.last { anchor = last }
            index += chunk.count
        } while index < points.count
        return result
    }
}
