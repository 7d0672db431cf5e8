import Foundation
import Haptics

/// What a command's PATTERN argument names: a pattern file (AHAP or .haptic) or a
/// built-in system haptic.
struct PatternSource {
    var label: String
    var loaded: LoadedPattern

    enum Failure: Error, CustomStringConvertible {
        case notFound(String)
        case unreadable(String, String)
        case invalid(String, PatternLoadError)

        var description: String {
            switch self {
            case .notFound(let name):
                "no file and no built-in haptic named \"\(name)\" (see `hapbridge library` for the built-in names)"
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .invalid(let path, let error): "\(path): \(error)"
            }
        }
    }

    static func resolve(_ argument: String, curveTimes: AHAPReader.ControlPointTimes = .relativeToCurve) throws(Failure) -> PatternSource {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), !isDirectory.boolValue {
            // Refuse an oversized file before reading it into memory.
            let limit = PatternLimits().json.maxBytes
            if let size = (try? FileManager.default.attributesOfItem(atPath: argument))?[.size] as? Int, size > limit {
                throw .invalid(argument, PatternLoadError(path: "(file)", rule: "\(size) bytes; the limit is \(limit)"))
            }
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: URL(fileURLWithPath: argument)))
            } catch {
                throw .unreadable(argument, error.localizedDescription)
            }
            let format = PatternFormat.detect(fileName: argument, bytes: bytes)
            do {
                let loaded = try format.read(bytes, ahapOptions: .init(controlPointTimes: curveTimes))
                return PatternSource(label: (argument as NSString).lastPathComponent, loaded: loaded)
            } catch {
                throw .invalid(argument, error)
            }
        }
        if let builtIn = SystemHapticLibrary.named(argument) {
            return PatternSource(label: builtIn.name, loaded: LoadedPattern(pattern: builtIn.pattern, warnings: []))
        }
        throw .notFound(argument)
    }

    func printWarnings() {
        for warning in loaded.warnings {
            FileHandle.standardError.write(Data("\(label): \(warning)\n".utf8))
        }
    }
}
