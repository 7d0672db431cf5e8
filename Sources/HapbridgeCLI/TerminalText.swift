import FileAccess

/// The CLI's name for the one rule that makes input safe to show on a terminal
/// (`FileAccess.TerminalText`, shared with the emulation's control socket).
typealias TerminalText = FileAccess.TerminalText
