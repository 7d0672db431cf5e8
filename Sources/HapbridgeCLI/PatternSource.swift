import Foundation
import Haptics

/// What a command's PATTERN argument names: a pattern file (AHAP or .haptic), `-`
/// for a pattern on standard input, or a built-in system haptic.
struct PatternSource {
    /// How messages and plots name it: the file's name, "(standard input)" or the
    /// built-in haptic's full name.
    var label: String
    var loaded: LoadedPattern

    enum Failure: Error, CustomStringConvertible {
        case notFound(String)
        case input(InputFile.Failure)
        case invalid(String, PatternLoadError)

        var description: String {
            switch self {
            case .notFound(let name):
                "no file and no built-in haptic named \"\(TerminalText.echo(name))\" (see `hapbridge library` for the built-in names)"
            case .input(let failure): failure.description
            case .invalid(let path, let error): "\(TerminalText.echo(path)): \(error)"
            }
        }
    }

    /// The most warnings printed; the rest are counted (render's JSON lists them all).
    static let shownWarnings = 20

    static func resolve(_ argument: String, curveTimes: AHAPReader.ControlPointTimes = .relativeToCurve) throws(Failure) -> PatternSource {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(argument, limit: PatternLimits().json.maxBytes)
        } catch .noSuchFile {
            if let builtIn = SystemHapticLibrary.named(argument) {
                return PatternSource(label: builtIn.name, loaded: LoadedPattern(pattern: builtIn.pattern, warnings: []))
            }
            throw .notFound(argument)
        } catch {
            throw .input(error)
        }
        let label = argument == "-" ? InputFile.standardInputName : (argument as NSString).lastPathComponent
        let format = PatternFormat.detect(fileName: argument == "-" ? "" : argument, bytes: bytes)
        do {
            return PatternSource(label: label, loaded: try format.read(bytes, ahapOptions: .init(controlPointTimes: curveTimes)))
        } catch {
            throw .invalid(argument == "-" ? label : argument, error)
        }
    }

    /// The loader's warnings on standard error, the first `shownWarnings` of them.
    func printWarnings() throws(StreamWriteError) {
        let warnings = loaded.warnings
        for warning in warnings.prefix(Self.shownWarnings) { try Console.err("\(label): \(warning)") }
        if warnings.count > Self.shownWarnings {
            try Console.err("\(label): … and \(plural(warnings.count - Self.shownWarnings, "more warning")) (`hapbridge render --format json` lists them all)")
        }
    }

    /// Audio events are kept in the model and never played or drawn: say so, once.
    func printAudioNotice(_ verb: String) throws(StreamWriteError) {
        let audio = loaded.pattern.audioEvents.count
        guard audio > 0 else { return }
        try Console.err("\(label): \(plural(audio, "audio event")) \(audio == 1 ? "is" : "are") kept but not \(verb) (the bench plays haptics only)")
    }
}
