import ArgumentParser
import Haptics

/// `render` and `play` share these: the two places where the formats leave the
/// reading open, so a pattern rehearsed with `render` plays the same with `play`.
public struct PatternReadingOptions: ParsableArguments {
    public enum CurveTimes: String, ExpressibleByArgument, CaseIterable, Sendable {
        case relative, absolute
    }

    /// `RenderOptions.SharpnessControlScope`, by the document each reading comes from.
    public enum SharpnessControl: String, ExpressibleByArgument, CaseIterable, Sendable {
        case continuous, all
    }

    @Option(
        help: ArgumentHelp(
            "How AHAP control-point times count: relative to their curve's Time (Core Haptics' rule) or absolute "
                + "(pattern times, as Lofelt's haptic2ahap and Meta's converter write them: each point is taken "
                + "relative to its curve's start).",
            valueName: "relative|absolute"))
    public var curveTimes: CurveTimes = .relative

    @Option(
        help: ArgumentHelp(
            "Which events HapticSharpnessControl reaches: continuous (Apple's AHAP article: continuous events only) "
                + "or all (CHHapticParameter.h: transients too). Transients a .haptic file plays apart are reached by neither.",
            valueName: "continuous|all"))
    public var sharpnessControl: SharpnessControl = .continuous

    public init() {}

    public var controlPointTimes: AHAPReader.ControlPointTimes {
        curveTimes == .absolute ? .absolute : .relativeToCurve
    }

    public var sharpnessControlScope: RenderOptions.SharpnessControlScope {
        sharpnessControl == .all ? .allHapticEvents : .continuousEvents
    }
}
