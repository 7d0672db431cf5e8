/// Imports Meta Haptics Studio / Lofelt `.haptic` files (data model v1).
///
/// Validation follows that format's own rules (Lofelt's `v1::DataModel::validate`):
/// the amplitude envelope is not empty, every amplitude, frequency and emphasis
/// value lies in 0…1, breakpoint times start at ≥ 0 and never decrease, and an
/// emphasis is never weaker than its breakpoint. Unlike AHAP, a value out of range
/// is an error, not a clamp: that is how the format's tools treat it.
///
/// The conversion is the one Lofelt's haptic2ahap performs, so files play as their
/// authors heard them through Core Haptics:
/// - continuous events of intensity 1 and sharpness 0, split every 30 s;
/// - intensity = √amplitude as HapticIntensityControl curves (ducked to 80% at a
///   breakpoint with emphasis, so the emphasis stands out), sharpness = √frequency
///   as HapticSharpnessControl curves, each curve at most 16 points, consecutive
///   curves sharing their joining point;
/// - each emphasis as a transient of intensity √(emphasis amplitude) and
///   sharpness = emphasis frequency.
/// Two deliberate differences: control-point times are written relative to their
/// curve (Core Haptics' rule; haptic2ahap writes absolute times), and the first
/// breakpoint's emphasis is kept (haptic2ahap's chunking skips it).
public enum LofeltHapticReader {
    static let maxPointsPerCurve = ParameterCurve.corePlayableControlPoints
    static let emphasisDucking = 0.8

    public static func read(_ bytes: [UInt8], limits: PatternLimits = PatternLimits()) throws(PatternLoadError) -> LoadedPattern {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes, limits: limits.json)
        } catch {
            throw PatternLoadError(path: "(JSON line \(error.line), column \(error.column))", rule: error.message)
        }
        var warnings: [PatternWarning] = []
        let model = try LofeltDataModel.decode(JSONCursor(value: json, path: ""), limits: limits, warnings: &warnings)
        return LoadedPattern(pattern: convert(model), warnings: warnings)
    }

    public static func read(_ text: String, limits: PatternLimits = PatternLimits()) throws(PatternLoadError) -> LoadedPattern {
        try read(Array(text.utf8), limits: limits)
    }

    static func convert(_ model: LofeltDataModel) -> HapticPattern {
        var pattern = HapticPattern(events: [])
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
