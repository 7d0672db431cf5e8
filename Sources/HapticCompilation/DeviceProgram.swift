import Haptics

/// A whole rendered timeline compiled for one actuator: the chip setup and the
/// timestamped commands, in µs from the program's start. What the tests check by
/// hand and against the rendered timeline; the engine streams the same commands
/// step by step through a `DriveCompiler`.
public struct DeviceProgram: Sendable, Equatable {
    public var target: DriveTarget
    /// The register block to write before the first command.
    public var setup: [TimedCommand]
    /// In non-decreasing time order; the last one returns the drive to 0.
    public var commands: [TimedCommand]
    /// µs: the timeline's duration, or later where the last burst or step shaping
    /// plays out beyond it (or the final 0 waits for its paced slot).
    public var duration: Int64

    /// Steps through the timeline's samples (its sample rate is the control rate:
    /// 1 kHz by default), with each transient at its exact time, then on at that
    /// rate with nothing continuous until transients at the very end have played
    /// and the last burst or step shaping is over, as the engine does. The work
    /// is linear in the timeline (samples, transients, and the longest burst's
    /// steps), which rendering bounds.
    public static func compile(_ timeline: Timeline, for target: DriveTarget) -> DeviceProgram {
        var compiler = DriveCompiler(target: target)
        var commands: [TimedCommand] = []
        let transients = timeline.transients.map {
            DriveCompiler.Transient(time: microseconds($0.time), intensity: $0.intensity, sharpness: $0.sharpness)
        }.sorted { $0.time < $1.time }
        let step = max(1, microseconds(1 / timeline.sampleRate))
        var next = 0, k = 0
        var t: Int64 = 0
        while k < timeline.sampleCount || next < transients.count || !compiler.isSettled {
            let sampled = k < timeline.sampleCount
            t = sampled ? microseconds(timeline.time(ofSample: k)) : t + step
            let first = next
            while next < transients.count, transients[next].time <= t { next += 1 }
            commands += compiler.step(
                time: t, intensity: sampled ? timeline.intensity[k] : 0, sharpness: sampled ? timeline.sharpness[k] : 0,
                transients: Array(transients[first..<next]))
            k += 1
        }
        let end = max(t, microseconds(timeline.duration))
        let last = compiler.finish(at: end)
        commands += last
        return DeviceProgram(target: target, setup: target.setupCommands(at: 0), commands: commands, duration: max(end, last.last?.time ?? end))
    }

    /// Seconds as whole µs; what is not a finite time within a year (no rendered
    /// timeline) is 0 or a year rather than a trap.
    static func microseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64((min(max(seconds, 0), 31_536_000) * 1e6).rounded())
    }
}
