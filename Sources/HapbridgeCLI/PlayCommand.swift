import Actuators
import ArgumentParser
import DRV2605
import Devices
import Foundation
import HapticEngine
import Haptics
import Plot
import SimulatedBoard
import SimulatedBridgeDevice

/// `hapbridge play PATTERN`: the whole path of one pattern — engine, player,
/// compilation, clock sync, look-ahead streaming, the board's firmware, the chip and
/// the actuator — on the default device (the simulated board).
public struct PlayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a pattern (AHAP, .haptic or a built-in name) on the bridge board, showing progress, late events and underruns.",
        discussion: """
            The default device is the simulated bridge board (the firmware core, the DRV2605 model and the actuator \
            physics, in virtual time): it plays as fast as it can. With --realtime the board's clock is the host's and \
            the engine runs its own service task, as it does on hardware: what the host's scheduling costs shows up \
            as late commands. \
            Progress lines show the pattern time, commands streamed, commands the host sent too late, and underruns \
            the board reported (commands it started more than 100 µs after their stamp). --plot saves the simulated \
            sled acceleration with the drive the chip was given.
            """)

    @Argument(help: "An .ahap or .haptic file, or a built-in haptic name (see `hapbridge library`).")
    public var pattern: String

    @Option(help: ArgumentHelp("Actuator profile on the simulated board: a name from Hardware/actuators or a .json path.", valueName: "PROFILE"))
    public var actuator: String = SimulatedBoardSetup.defaultActuatorProfile

    @Option(help: "Simulated chip: drv2605l or drv2605.")
    public var variant: DeviceOptions.ChipVariant = .drv2605l

    @Option(name: .customLong("playback-rate"), help: "Core Haptics' playbackRate (> 0; 2 plays twice as fast).")
    public var playbackRate: Double = 1

    @Option(help: "Write the simulated acceleration and the drive as an SVG plot to this file.")
    public var plot: String?

    @Flag(help: "Run the simulated board on the wall clock, the engine on its own service task (as on hardware).")
    public var realtime = false

    @Option(name: .customLong("link-latency"), help: "Simulated USB one-way latency in µs (default 500).")
    public var linkLatency: UInt64 = 500

    public init() {}

    public func validate() throws {
        guard playbackRate.isFinite, playbackRate > 0 else { throw ValidationError("--playback-rate must be a finite number > 0, not \(playbackRate)") }
        if let plot, !plot.lowercased().hasSuffix(".svg") { throw ValidationError("--plot writes SVG: give a file name ending in .svg") }
        guard linkLatency <= 100_000 else { throw ValidationError("--link-latency is at most 100000 µs") }
    }

    public func run() async throws {
        let source: PatternSource
        do { source = try PatternSource.resolve(pattern) } catch { throw CLIError("\(error)") }
        source.printWarnings()
        let profile: ActuatorProfile
        do { profile = try ActuatorProfileLoader.resolve(actuator) } catch { throw ValidationError("\(error)") }
        let setup = SimulatedBoardSetup(
            actuator: profile, variant: variant.variant, timing: realtime ? .realTime : .virtual, link: .init(latencyMicroseconds: linkLatency))
        let opened: OpenedDevice
        do { opened = try DeviceCatalog().open(.simulated, simulated: setup) } catch { throw CLIError("\(error)") }
        let summary = opened.summary
        let engine = HapticEngine(device: opened.takeTransport(), actuator: profile, options: .init(driving: realtime ? .automatic : .manual))

        print("device: \(summary)")
        print("actuator: \(profile.displayName)")
        do { try await engine.start() } catch { throw CLIError("cannot start the engine: \(error)") }
        let caps = await engine.capabilities
        print("engine: started on \(caps.chip.map(String.init(describing:)) ?? "?"), sharpness as \(caps.sharpnessShaping.map { $0 == .openLoopFrequency ? "open-loop LRA frequency" : "overdrive/brake emphasis" } ?? "?")")

        let player: HapticAdvancedPatternPlayer
        do { player = try await engine.makeAdvancedPlayer(with: source.loaded.pattern) } catch { throw CLIError("\(error)") }
        let done = Done()
        try await player.setCompletionHandler { _ in done.set() }
        try await player.setPlaybackRate(playbackRate)
        let duration = source.loaded.pattern.duration / playbackRate
        let begin = await engine.currentTime + 0.005
        let beginBoard = await engine.withDevice { ($0 as? SimulatedBridgeDevice)?.board.time ?? 0 }
        try await player.start(atTime: begin)
        print("playing \(source.label): \(Self.ms(duration)) at playback rate \(playbackRate)")

        var nextReport = 0.0
        while true {
            try await pass(0.05, on: engine)
            let position = max(0, await engine.currentTime - begin)
            let s = await engine.statistics
            if position >= nextReport || done.isSet {
                print(Self.progress(position: min(position, duration), duration: duration, stats: s))
                nextReport += max(0.1, duration / 10)
            }
            if done.isSet && position >= duration { break }
            if position > duration + 1 { break }  // the completion never came: report, do not hang
        }
        try await pass(0.05, on: engine)  // let the last brake ring down in the plot
        let s = await engine.statistics
        await engine.stop()
        print("done: \(s.commandsSent) commands, \(s.lateCommands) late, \(s.boardUnderruns) underruns, \(s.rejectedFrames) rejected; queue high water \(s.queueHighWater)")
        if let c = s.clock {
            print(String(format: "clock: board − host offset %.0f µs, drift %.1f ppm, error ±%.0f µs (%d sync rounds)", c.offset, c.drift * 1e6, c.errorMicroseconds, c.exchanges))
        }
        let trace = await engine.withDevice { d -> ([AccelerationSample], [(UInt64, Int8)]) in
            guard let sim = d as? SimulatedBridgeDevice else { return ([], []) }
            let writes = sim.board.registerWrites.filter { $0.register == 0x02 && $0.time >= beginBoard }.map { ($0.time, Int8(bitPattern: $0.value)) }
            return (sim.board.acceleration(from: beginBoard), writes)
        }
        let peak = trace.0.map { abs($0.g) }.max() ?? 0
        print(String(format: "peak acceleration: %.3f g (simulated sled)", peak))
        if let plot {
            try Self.savePlot(trace, to: plot, title: "hapbridge play \(source.label)", subtitle: "\(profile.displayName) on \(summary)")
            print("plot: \(plot)")
        }
        if done.isSet == false { throw CLIError("the player did not report completion") }
    }

    /// Lets time pass: virtual time is advanced by hand, real time is waited out while
    /// the engine's service task runs.
    func pass(_ seconds: Double, on engine: HapticEngine) async throws {
        if realtime { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } else { try await engine.advance(bySeconds: seconds) }
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }

    static func progress(position: Double, duration: Double, stats s: StreamStatistics) -> String {
        let width = 20
        let filled = duration > 0 ? Int((position / duration * Double(width)).rounded(.down)) : width
        let bar = String(repeating: "#", count: min(width, filled)) + String(repeating: ".", count: max(0, width - filled))
        return String(format: "  %7.0f / %.0f ms [%@] sent %d, late %d, underruns %d", position * 1000, duration * 1000, bar, s.commandsSent, s.lateCommands, s.boardUnderruns)
    }

    static func savePlot(_ trace: ([AccelerationSample], [(UInt64, Int8)]), to path: String, title: String, subtitle: String) throws {
        let (all, writes) = trace
        guard let t0 = all.first?.time else { throw CLIError("no acceleration was recorded; nothing to plot") }
        let samples = envelope(all, buckets: 2500)
        let xs = samples.map { Double($0.time - t0) / 1000 }
        // The drive as a step trace scaled to the acceleration's peak, to read them together.
        let peak = max(0.001, samples.map { abs($0.g) }.max() ?? 1)
        var dx: [Double] = [], dy: [Double] = []
        var last = 0.0
        for (t, a) in writes where t >= t0 {
            let x = Double(t - t0) / 1000
            dx.append(x); dy.append(last)
            last = Double(a) / 127 * peak
            dx.append(x); dy.append(last)
        }
        if let end = xs.last { dx.append(end); dy.append(last) }
        let plot = Plot(
            title: title, subtitle: subtitle, xLabel: "time (ms)", yLabel: "acceleration (g)",
            series: [
                Plot.Series(name: "sled acceleration (simulated)", color: Plot.Palette.blue, xs: xs, ys: samples.map(\.g)),
                Plot.Series(name: "RTP drive (scaled to the peak)", color: Plot.Palette.orange, xs: dx, ys: dy, strokeWidth: 1.2),
            ])
        do { try plot.svg().write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw CLIError("cannot write plot to \(path): \(error.localizedDescription)")
        }
    }
}

/// At most two samples per bucket, the lowest and the highest in time order: the
/// plot keeps the vibration's envelope and every peak, and Plot's SVG writer gets
/// thousands of points instead of 10 kHz × the pattern (which takes it minutes).
func envelope(_ samples: [AccelerationSample], buckets: Int) -> [AccelerationSample] {
    guard samples.count > 2 * buckets else { return samples }
    let size = (samples.count + buckets - 1) / buckets
    var out: [AccelerationSample] = []
    out.reserveCapacity(2 * buckets)
    var i = 0
    while i < samples.count {
        let chunk = samples[i..<min(samples.count, i + size)]
        guard let lo = chunk.min(by: { $0.g < $1.g }), let hi = chunk.max(by: { $0.g < $1.g }) else { break }
        out += lo.time <= hi.time ? [lo, hi] : [hi, lo]
        i += size
    }
    return out
}

/// Set once from the engine's callback queue, read by the command: every access
/// holds the lock, which is what makes `@unchecked Sendable` sound here.
final class Done: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
