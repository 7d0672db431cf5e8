/// The one rule for vibrations that overlap on one actuator, used by the renderer
/// (events of a pattern) and by the engine (players): intensities add, clipped at
/// 1 — one actuator carries one amplitude, and adding is how simultaneous
/// vibrations combine; sharpness is the intensity-weighted mean of what is playing
/// (the louder part sets the feel), or, where everything playing is silent, the
/// sharpness of the latest-started part.
public enum MixingRule {
    /// - Parameters:
    ///   - totalIntensity: the sum of the parts' intensities.
    ///   - weightedSharpness: the sum of intensity × sharpness.
    ///   - latestSharpness: the sharpness of the latest-started part (0 if none).
    @inline(__always)
    public static func resolve(
        totalIntensity: Double, weightedSharpness: Double, latestSharpness: Double
    ) -> (intensity: Double, sharpness: Double) {
        guard totalIntensity > 0 else { return (0, latestSharpness) }
        return (min(1, totalIntensity), weightedSharpness / totalIntensity)
    }
}
