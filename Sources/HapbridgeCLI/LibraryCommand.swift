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

        func run() {
            for platform in SystemHaptic.Platform.allCases {
                print(platform.rawValue == "ios" ? "iOS" : platform.rawValue == "macos" ? "macOS" : "watchOS")
                for haptic in SystemHapticLibrary.all where haptic.platform == platform {
                    let padded = haptic.name.padding(toLength: 26, withPad: " ", startingAt: 0)
                    let duration = Int((haptic.pattern.duration * 1000).rounded())
                    print("  \(padded) \(String(duration).leftPadded(4)) ms  \(haptic.meaning)")
                    if why { print(String(repeating: " ", count: 38) + "shape: \(haptic.shape)") }
                }
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a built-in haptic as an AHAP file.")

        @Argument(help: "The haptic's name, e.g. ios.impact.heavy (a unique ending such as impact.heavy works too).")
        var name: String

        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
        var output: String?

        func validate() throws {
            guard SystemHapticLibrary.named(name) != nil else {
                throw ValidationError("no built-in haptic named \"\(name)\"; `hapbridge library` lists them")
            }
        }

        func run() throws {
            try OutputFile.write(AHAPWriter.string(SystemHapticLibrary.named(name)!.pattern), to: output)
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
