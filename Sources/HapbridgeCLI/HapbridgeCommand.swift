import ArgumentParser
import FileAccess
import Foundation

/// The `hapbridge` command: one subcommand per file in this folder.
public struct HapbridgeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "hapbridge",
        abstract: "Core Haptics for bench hardware: play, render and inspect haptic patterns on a DRV2605.",
        discussion: "Documents (wiring, udev, benches, the firmware, what has run on real hardware): \(ShippedFiles.documents). "
            + ExitStatus.summary,
        version: HapbridgeVersion.text,
        subcommands: [
            ListCommand.self,
            InfoCommand.self,
            PlayCommand.self,
            MeasureCommand.self,
            SweepCommand.self,
            RenderCommand.self,
            LibraryCommand.self,
            CalibrateCommand.self,
            GuardCommand.self,
            DiagnoseCommand.self,
            ROMCommand.self,
            EmulateCommand.self,
            FlashCommand.self,
            RunCommand.self,
            DiffCommand.self,
        ])

    public init() {}
}

extension HapbridgeCommand {
    /// Parses the process arguments, runs the chosen subcommand and exits with the
    /// status `ExitStatus` documents.
    public static func runFromCommandLine() async -> Never {
        Console.adoptStandardDescriptors()
        // The arguments' own bytes: `CommandLine.arguments` would repair a file name that
        // is not UTF-8 into another name (`ArgumentText`).
        let status = await main(Array(ArgumentText.commandLineArguments().dropFirst()))
        // A Ctrl-Z ended the command (its device closed): suspend only now.
        Interruption.suspendIfAsked()
        Foundation.exit(status)
    }

    /// The one place errors become exit statuses. Whatever parsing throws (including a
    /// command's `validate()`) is a usage error: status 2 with the usage text. Whatever
    /// a command throws once it runs is a failure: status 1 and one line, never the
    /// usage text, because the command line was fine (128 + N when signal N came
    /// first: `Interruption`). Commands end with an `ExitCode`
    /// of their own only for the statuses `ExitStatus` lists, and `emulate` for its
    /// COMMAND's (which it passes on as a shell would).
    static func main(_ arguments: [String]) async -> Int32 {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            return reportParseError(error).rawValue
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ExitStatus.success.rawValue
        } catch let code as ExitCode {
            return code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue
        } catch where exitCode(for: error) == .success {
            return reportParseError(error).rawValue  // help: `hapbridge`, `hapbridge help play`
        } catch {
            try? Console.err("Error: " + oneLine(String(describing: error)))
            // What failed after a signal (a FIFO whose reader never came, given up on
            // it) ends with the signal's status, as the command would have without it.
            if let signal = Interruption.shared.signal { return Interruption.exitStatus(signal) }
            return ExitStatus.failure.rawValue
        }
    }

    /// Help (status 0) to standard output; anything else ArgumentParser reports with
    /// the usage text to standard error, status 2.
    static func reportParseError(_ error: any Error) -> ExitStatus {
        let message = fullMessage(for: error).trimmingCharacters(in: .newlines)
        if exitCode(for: error) == .success {
            // The program's own text (help, --version, --experimental-dump-help's JSON),
            // written as it is: capping a long line would cut a JSON string in two.
            do { try Console.write(message + "\n", to: .output) } catch {
                try? Console.err("Error: \(error)")
                return .failure
            }
            return .success
        }
        if !message.isEmpty { try? Console.lines(message.components(separatedBy: "\n"), to: .error) }
        let code = exitCode(for: error)
        return code == .validationFailure ? .usage : ExitStatus(rawValue: code.rawValue) ?? .usage
    }

    /// A message that spans lines (a profile error with the names available) as one.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}
