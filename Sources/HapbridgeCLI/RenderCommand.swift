import ArgumentParser
import Foundation
import Haptics

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a pattern to its timeline: intensity and sharpness over time, transients marked.",
        discussion: """
            PATTERN is an AHAP file, a Meta Haptics Studio / Lofelt .haptic file, - for a pattern on standard \
            input, or a built-in system haptic (see `hapbridge library`). Warnings from loading go to standard error. \
            --format ahap writes the pattern itself as AHAP (control-point times relative to their curve). A .haptic \
            file plays as Meta's player plays it, as two patterns started together: the continuous one, written to \
            the --output file, and its emphasis transients, played apart from the continuous curves, written beside \
            it with -transients before the extension (out.ahap and out-transients.ahap; none when it has no transients).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json, svg, ahap
    }

    static let sampleRates: ClosedRange<Double> = 1...1_000_000

    @Argument(help: "An .ahap or .haptic file, - for standard input, or a built-in haptic name such as ios.notification.success.")
    var pattern: String

    @Option(name: .shortAndLong, help: "Output format: csv (one row per sample and per transient), json, svg (a plot), or ahap (the pattern itself; a .haptic file as Meta's pair, see above).")
    var format: Format = .svg

    @Option(name: .shortAndLong, help: "Write to this file (- or none: standard output). A regular file is replaced atomically; a device or FIFO is written through.")
    var output: String?

    @Option(name: .long, help: "Samples per second of output time (1 to 1000000).")
    var rate: Double = 1000

    @Option(name: .long, help: PlaybackRateOption.help)
    var playbackRate: Double = 1

    @OptionGroup var reading: PatternReadingOptions

    func validate() throws {
        guard Self.sampleRates.contains(rate) else {
            throw ValidationError("--rate must be between 1 and 1000000 samples per second, not \(rate)")
        }
        try PlaybackRateOption.validate(playbackRate)
        if format == .ahap, playbackRate != 1 {
            throw ValidationError("--playback-rate applies to a rendered timeline; an AHAP file has no playback rate (play it with one)")
        }
    }

    func run() throws {
        let destination = try OutputFile(output, purpose: "output")
        let source = try PatternSource.resolve(pattern, curveTimes: reading.controlPointTimes)
        try source.printWarnings()
        if format == .ahap { return try writeAHAP(source.loaded.pattern, to: destination) }
        try source.printAudioNotice("rendered")
        let timeline: Timeline
        do {
            timeline = try Renderer.render(
                source.loaded.pattern,
                options: RenderOptions(sampleRate: rate, playbackRate: playbackRate, sharpnessControl: reading.sharpnessControlScope))
        } catch {
            throw CLIError("\(source.label): \(error)")
        }
        let text = switch format {
        case .csv: TimelineExport.csv(timeline)
        case .json: TimelineExport.json(timeline, source: source)
        case .svg: TimelineExport.svg(timeline, source: source)
        case .ahap: AHAPWriter.string(source.loaded.pattern)  // written above, before rendering
        }
        try destination.write(text)
        if !destination.isStandardOutput { try Console.err("wrote \(destination.name)") }
    }

    /// The pattern as AHAP. One whose transients play apart (a .haptic file) is two
    /// patterns, as Meta's SDK writes it (`SplitAhap`): an AHAP cannot say "apart",
    /// and one file would have Core Haptics scale the transients by the curves.
    private func writeAHAP(_ pattern: HapticPattern, to destination: OutputFile) throws {
        guard pattern.transientPlayback == .apart else {
            try destination.write(AHAPWriter.string(pattern))
            if !destination.isStandardOutput { try Console.err("wrote \(destination.name)") }
            return
        }
        let (continuous, transients) = pattern.splitForSeparatePlayers()
        let transientsFile: OutputFile?
        if let transients {
            guard let path = destination.path else {
                throw CLIError(
                    "\(TerminalText.echo(self.pattern)) plays as two AHAP patterns started together (continuous, and "
                        + "\(plural(transients.events.count, "transient")) played apart from its curves): give --output FILE.ahap "
                        + "to write FILE.ahap and FILE-transients.ahap")
            }
            transientsFile = try OutputFile(Self.transientsPath(for: path), purpose: "transients output")
        } else {
            transientsFile = nil
        }
        try destination.write(AHAPWriter.string(continuous))
        if !destination.isStandardOutput { try Console.err("wrote \(destination.name) (continuous)") }
        if let transients, let transientsFile {
            try transientsFile.write(AHAPWriter.string(transients))
            try Console.err("wrote \(transientsFile.name) (\(plural(transients.events.count, "transient")), to play on a player of their own, started with the continuous one)")
        }
    }

    /// `out.ahap` → `out-transients.ahap`; a name without the .ahap extension gets
    /// `-transients.ahap` appended.
    static func transientsPath(for path: String) -> String {
        let suffix = ".ahap"
        if path.lowercased().hasSuffix(suffix), path.count > suffix.count,
           let last = path.split(separator: "/", omittingEmptySubsequences: false).last, last.count > suffix.count {
            return String(path.dropLast(suffix.count)) + "-transients" + String(path.suffix(suffix.count))
        }
        return path + "-transients.ahap"
    }
}
