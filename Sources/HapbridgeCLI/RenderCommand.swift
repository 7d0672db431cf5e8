import ArgumentParser
import Foundation
import Haptics

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a pattern to its timeline: intensity and sharpness over time, transients marked.",
        discussion: """
            PATTERN is an AHAP file, a Meta Haptics Studio / Lofelt .haptic file, or a built-in \
            system haptic (see `hapbridge library`). Warnings from loading go to standard error.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json, svg
    }

    enum CurveTimes: String, ExpressibleByArgument, CaseIterable {
        case relative, absolute
    }

    @Argument(help: "An .ahap or .haptic file, or a built-in haptic name such as ios.notification.success.")
    var pattern: String

    @Option(name: .shortAndLong, help: "Output format: csv (one row per sample and per transient), json, or svg (a plot).")
    var format: Format = .svg

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @Option(name: .long, help: "Samples per second of output time (1 to 1000000).")
    var rate: Double = 1000

    @Option(name: .long, help: "Playback rate, as Core Haptics' playbackRate: 2 plays twice as fast.")
    var playbackRate: Double = 1

    @Option(name: .long, help: "How AHAP control-point times count: relative to their curve (Core Haptics) or absolute (files from Lofelt's haptic2ahap).")
    var curveTimes: CurveTimes = .relative

    func validate() throws {
        guard rate.isFinite, rate >= 1, rate <= 1_000_000 else {
            throw ValidationError("--rate must be between 1 and 1000000 samples per second")
        }
        guard playbackRate.isFinite, playbackRate > 0 else {
            throw ValidationError("--playback-rate must be greater than 0")
        }
    }

    func run() throws {
        let source: PatternSource
        do {
            source = try PatternSource.resolve(pattern, curveTimes: curveTimes == .absolute ? .absolute : .relativeToCurve)
        } catch {
            throw CLIError(error.description)
        }
        source.printWarnings()
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
        try OutputFile.write(text, to: output)
    }
}
