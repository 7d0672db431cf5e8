import Haptics

/// A whole rendered timeline compiled for one actuator: the chip setup and the
/// timestamped commands, in µs from the program's start. What `hapbridge play`
/// shows and what the tests check by hand; the engine streams the same commands
/// step by step through a `DriveCompiler`.
public struct DeviceProgram: Sendable, Equatable {
    public var target: DriveTarget
    /// The register block to write before the first command.
    public var setup: [TimedCommand]
    /// In non-decreasing time order; the last one returns the drive to 0.
    public var commands: [TimedCommand]
    /// The timeline's duration, µs.
    public var duration: Int64

    /// Steps through the timeline's samples (its sample rate is the control rate:
    /// 1 kHz by default), with each transient at its exact time.
    public static func compile(_ timeline: Timeline, for target: DriveTarget) -> DeviceProgram {
        var compiler = DriveCompiler(target: target)
        var commands: [TimedCommand] = []
        let duration = Int64((timeline.duration * 1e6).rounded())
        var nextTransient = 0
        let transients = timeline.transients.map {
            DriveCompiler.Transient(time: Int64(($0.time * 1e6).rounded()), intensity: $0.intensity, sharpness: $0.sharpness)
        }
        var t: Int64 = 0
        for k in 0..<timeline.sampleCount {
            t = Int64((timeline.time(ofSample: k) * 1e6).rounded())
            var due: [DriveCompiler.Transient] = []
            while nextTransient < transients.count, transients[nextTransient].time <= t {
                due.append(transients[nextTransient])
                nextTransient += 1
            }
            commands += compiler.step(time: t, intensity: timeline.intensity[k], sharpness: timeline.sharpness[k], transients: due)
        }
        // Transients at the very end, and bursts still running, play out before the stop.
        let end = transients.last.map { max(duration, $0.time + Self.longestBurst(compiler)) } ?? duration
        let step = Int64((1e6 / timeline.sampleRate).rounded())
        while t < end {
            t = min(end, t + step)
            var due: [DriveCompiler.Transient] = []
            while nextTransient < transients.count, transients[nextTransient].time <= t {
                due.append(transients[nextTransient])
                nextTransient += 1
            }
            commands += compiler.step(time: t, intensity: 0, sharpness: 0, transients: due)
        }
        commands += compiler.finish(at: end)
        return DeviceProgram(target: target, setup: target.setupCommands(at: 0), commands: commands, duration: end)
    }

    static func longestBurst(_ compiler: DriveCompiler) -> Int64 {
        let (od, br) = compiler.burstDurations(sharpness: 0)
        return od + br
    }
}
