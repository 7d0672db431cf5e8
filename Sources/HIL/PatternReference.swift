import FileAccess
import Glibc
import Haptics

/// What a `play` or `measure` step names: a pattern file (AHAP or .haptic), found beside
/// the script, or else a built-in system haptic (`hapbridge library`). The one rule both
/// the load-time check (`TestScript.check`) and the step itself follow.
enum PatternReference {
    /// The largest pattern file read (the JSON reader's own limit).
    static let maxPatternBytes = PatternLimits().json.maxBytes

    /// Why a name gives no pattern.
    enum Problem: Error, Sendable, CustomStringConvertible {
        /// No such file and no built-in of that name; the nearest built-in's name, if one is near.
        case notFound(path: String, name: String, suggestion: String?)
        /// A file is there and cannot be read (a directory, a FIFO, too large, no permission).
        case unreadable(FileAccessError)
        /// The file is not a pattern hapbridge can play.
        case invalid(path: String, PatternLoadError)

        var description: String {
            switch self {
            case .notFound(let path, let name, let suggestion):
                "no pattern file \(path) and no built-in haptic named \(YAMLNode.echo(name))"
                    + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "") + " (see `hapbridge library`)"
            case .unreadable(let e): e.description
            case .invalid(let path, let e): "\(path): \(e)"
            }
        }
    }

    static func load(_ name: String, relativeTo directory: String) throws(Problem) -> HapticPattern {
        let path = HILRunner.path(name, relativeTo: directory)
        let bytes: [UInt8]
        do { bytes = try FileReader.read(FilePath(path), limit: maxPatternBytes) } catch {
            guard error.problem == .noSuchFile || error.problem == .system(ENOTDIR) else { throw .unreadable(error) }
            if let builtIn = SystemHapticLibrary.named(name) { return builtIn.pattern }
            throw .notFound(path: path, name: name, suggestion: SystemHapticLibrary.suggestion(for: name))
        }
        do { return try PatternFormat.detect(fileName: path, bytes: bytes).read(bytes).pattern } catch { throw .invalid(path: path, error) }
    }
}
