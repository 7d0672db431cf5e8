import Foundation

/// A user-facing failure: printed as `Error: …` with a non-zero exit, never a trap.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum OutputFile {
    /// Writes to `path`, or to standard output when it is nil or "-".
    static func write(_ text: String, to path: String?) throws {
        guard let path, path != "-" else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
        FileHandle.standardError.write(Data("wrote \(path)\n".utf8))
    }
}
