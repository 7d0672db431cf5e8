import ArgumentParser
import FileAccess

/// `--plot FILE.svg`, shared by every command that has it.
enum PlotOption {
    static let help = ArgumentHelp(
        "Write the acceleration as an SVG plot to this file (a device or FIFO is written through).", valueName: "file.svg")

    /// A plot is SVG: a name that says otherwise (`out.png`) is a mistake worth
    /// stopping for. A device or FIFO (/dev/null, a pipe's name) has no extension to
    /// check; standard output carries the command's report, so "-" is refused.
    static func validate(_ path: String?) throws(ValidationError) {
        guard let path else { return }
        guard path != "-" else { throw ValidationError("--plot needs a file: standard output carries the report") }
        guard !path.lowercased().hasSuffix(".svg") else { return }
        let isSpecial = [.characterDevice, .fifo].contains(FilePath(path).kind)
        guard isSpecial else { throw ValidationError("--plot writes SVG: give a file name ending in .svg, not \(TerminalText.echo(path))") }
    }
}
