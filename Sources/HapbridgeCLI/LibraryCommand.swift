import ArgumentParser
import Haptics

struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "The built-in system haptics: list them with their meaning, or export one as AHAP.",
        subcommands: [List.self, Export.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every built-in haptic with its documented meaning.")

        @Flag(name: .long, help: "Also say why each pattern has its shape.")
        var why = false

        func run() throws {
            var lines: [String] = []
            for platform in SystemHaptic.Platform.allCases {
                lines.append(platform.rawValue == "ios" ? "iOS" : platform.rawValue == "macos" ? "macOS" : "watchOS")
                for haptic in SystemHapticLibrary.all where haptic.platform == platform {
                    let padded = haptic.name.padding(toLength: 26, withPad: " ", startingAt: 0)
                    lines.append("  \(padded) \(Self.summary(haptic.pattern).padding(toLength: 22, withPad: " ", startingAt: 0)) \(haptic.meaning)")
                    if why { lines.append(String(repeating: " ", count: 52) + "shape: \(haptic.shape)") }
                }
            }
            try Console.lines(lines, to: .output)
        }

        /// "2 taps, 100 ms" / "1 tap" / "1 tap + 1 buzz, 60 ms".
        static func summary(_ pattern: HapticPattern) -> String {
            let taps = pattern.events.filter { $0.type == .hapticTransient }.count
            let buzzes = pattern.events.filter { $0.type == .hapticContinuous }.count
            var parts: [String] = []
            if taps > 0 { parts.append(plural(taps, "tap")) }
            if buzzes > 0 { parts.append(plural(buzzes, "buzz", "buzzes")) }
            let milliseconds = (pattern.duration * 1000).rounded()
            return parts.joined(separator: " + ") + (milliseconds > 0 ? ", \(JSONWriter.format(milliseconds)) ms" : "")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a built-in haptic as an AHAP file.")

        @Argument(help: "The haptic's name, e.g. ios.impact.heavy (a unique ending such as impact.heavy works too).")
        var name: String

        @Option(name: .shortAndLong, help: "Write to this file (- or none: standard output). A regular file is replaced atomically; a device or FIFO is written through.")
        var output: String?

        func validate() throws {
            guard SystemHapticLibrary.named(name) != nil else {
                throw ValidationError("no built-in haptic named \"\(TerminalText.echo(name))\"; `hapbridge library` lists them")
            }
        }

        func run() throws {
            let destination = try OutputFile(output, purpose: "AHAP")
            guard let haptic = SystemHapticLibrary.named(name) else { throw CLIError("no built-in haptic named \"\(TerminalText.echo(name))\"") }
            try destination.write(AHAPWriter.string(haptic.pattern))
            if !destination.isStandardOutput { try Console.err("wrote \(destination.name)") }
        }
    }
}
