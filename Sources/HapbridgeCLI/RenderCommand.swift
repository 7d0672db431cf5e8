import ArgumentParser
import Foundation
import Haptics

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a pattern to its timeline: intensity and sharpness over time, transients marked.",
        discussion: """
            PATTERN is an AHAP file, a Meta Haptics Studio / Lofelt .haptic file, - for a pattern on standard \
            input, or a built-in system haptic (see `hapbridge library`). Warnings from loading go to standard error.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json, svg
    }

    enum CurveTimes: String, ExpressibleByArgument, CaseIterable {
        case relative, absolute
    }

    static let sampleRates: ClosedRange<Double> = 1...1_000_000

    @Argument(help: "An .ahap or .haptic file, - for standard input, or a built-in haptic name such as ios.notification.success.")
    var pattern: String

    @Option(name: .shortAndLong, help: "Output format: csv (one row per sample and per transient), json, or svg (a plot).")
    var format: Format = .svg

    @Option(name: .shortAndLong, help: "Write to this file (- or none: standard output). A regular file is replaced atomically; a device or FIFO is written through.")
    var output: String?

    @Option(name: .long, help: "Samples per second of output time (1 to 1000000).")
    var rate: Double = 1000

    @Option(name: .long, help: PlaybackRateOption.help)
    var playbackRate: Double = 1

    @Option(name: .long, help: "How AHAP control-point times count: relative to their curve (Core Haptics) or absolute (files from Lofelt's haptic2ahap).")
    var curveTimes: CurveTimes = .relative

    func validate() throws {
        guard Self.sampleRates.contains(rate) else {
            throw ValidationError("--rate must be between 1 and 1000000 samples per second, not \(rate)")
        }
        try PlaybackRateOption.validate(playbackRate)
    }

    func run() throws {
        let destination = try OutputFile(output, purpose: "output")
        let source = try PatternSource.resolve(pattern, curveTimes: curveTimes == .absolute ? .absolute : .relativeToCurve)
        try source.printWarnings()
        try source.printAudioNotice("rendered")
        let timeline: Timeline
        do {
            timeline = try Renderer.render(source.loaded.pattern, options: RenderOptions(sampleRate: rate, playbackRate: playbackRate))
        } catch {
            throw CLIError("\(source.label): \(error)")
        }
        let text = switch format {
        case .csv: TimelineExport.csv(timeline)
        case .json: TimelineExport.json(timeline, source: source)
        case .svg: TimelineExport.svg(timeline, source: source)
        }
        try destination.write(text)
        if !destination.isStandardOutput { try Console.err("wrote \(destination.name)") }
    }
}
