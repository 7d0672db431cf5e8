import ArgumentParser

/// The hardware-layer subcommands, for `HapbridgeCommand`'s list.
public enum HardwareCommands {
    public static let all: [any ParsableCommand.Type] = [CalibrateCommand.self, DiagnoseCommand.self, ROMCommand.self]
}
