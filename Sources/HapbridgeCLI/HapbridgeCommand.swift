import ArgumentParser

/// The `hapbridge` command: one subcommand per file in this folder.
public struct HapbridgeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "hapbridge",
        abstract: "Core Haptics for bench hardware: play, render and inspect haptic patterns on a DRV2605.",
        subcommands: [
            PlayCommand.self,
            RenderCommand.self,
            LibraryCommand.self,
            CalibrateCommand.self,
            DiagnoseCommand.self,
            ROMCommand.self,
            EmulateCommand.self,
        ])

    public init() {}
}

extension HapbridgeCommand {
    /// Parses the process arguments and runs the chosen subcommand, sync or async.
    public static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
