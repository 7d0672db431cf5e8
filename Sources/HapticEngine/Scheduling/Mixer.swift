import HapticCompilation
import Haptics

/// How several players make one actuator stream: the pattern layer's `MixingRule`
/// for overlapping events, applied across players.
/// - Transients from every player all play (each keeps its own parameters); the
///   compiler cuts an earlier burst short when a later one starts.
/// - Muted players and a muted engine contribute nothing.
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
        return (mixed.intensity, mixed.sharpness, transients.sorted { $0.time < $1.time })
    }
}
