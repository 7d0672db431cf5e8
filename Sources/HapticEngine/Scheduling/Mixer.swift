import HapticCompilation
import Haptics

/// How several players make one actuator stream: the pattern layer's `MixingRule`
/// for overlapping events, applied across players.
/// - Continuous parts: intensities add, clipped at 1; sharpness intensity-weighted.
/// - Transients from every player all play, each with its own parameters; the
///   compiler adds each burst to the mixed continuous drive, mixes transients of
///   one microsecond into one burst by the same rule, and lets a later burst cut
///   an earlier one short (`DriveCompiler`, rule 3).
/// - Muted players and a muted engine contribute nothing.
/// A mix costs O(parts + transients); `CompilationLimits.check(contributions:)`
/// bounds the parts.
enum Mixer {
    static func mix(_ parts: [PlayerPlayback.Contribution]) -> (intensity: Double, sharpness: Double, transients: [DriveCompiler.Transient]) {
        var sum = 0.0, weighted = 0.0
        var latest: PlayerPlayback.Contribution?
        var transients: [DriveCompiler.Transient] = []
        for p in parts {
            sum += p.intensity
            weighted += p.intensity * p.sharpness
            if latest.map({ p.startedAt >= $0.startedAt }) ?? true { latest = p }
            for t in p.transients where t.intensity > 0 {
                transients.append(DriveCompiler.Transient(time: t.time, intensity: t.intensity, sharpness: t.sharpness))
            }
        }
        let mixed = MixingRule.resolve(
            totalIntensity: sum, weightedSharpness: weighted, latestSharpness: latest?.sharpness ?? 0)
        // The compiler puts the transients in time order.
        return (mixed.intensity, mixed.sharpness, transients)
    }
}
