import Foundation
@testable import Haptics

/// Files the tests read: the repository's Examples/ and the third-party patterns in
/// Tests/Fixtures (their origins and licences are in Tests/Fixtures/README.md),
/// found from this file's path so the tests run from any directory.
enum Fixtures {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures")
    static let interop = directory.appendingPathComponent("interop")
    static let apple = directory.appendingPathComponent("apple-unityplugins")
    static let meta = directory.appendingPathComponent("meta-haptics-sdk")

    static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

    static func files(in directory: URL, extension ext: String) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == ext }
            .sorted { $0.path < $1.path }
    }

    static var interopAHAP: [URL] { files(in: interop.appendingPathComponent("ahap"), extension: "ahap") }
    static var interopHaptic: [URL] { files(in: interop.appendingPathComponent("haptic"), extension: "haptic") }
    static var appleAHAP: [URL] { files(in: apple, extension: "ahap") }
    static var metaHaptic: [URL] { files(in: meta, extension: "haptic") }

    /// One of Meta's test files (`meta-haptics-sdk/`), read by its extension's reader.
    static func metaFile(_ name: String, curveTimes: AHAPReader.ControlPointTimes = .relativeToCurve) throws -> LoadedPattern {
        let url = meta.appendingPathComponent(name)
        return url.pathExtension == "haptic" ? try LofeltHapticReader.read(try bytes(url))
            : try AHAPReader.read(try bytes(url), options: .init(controlPointTimes: curveTimes))
    }

    static func ahap(_ name: String) throws -> LoadedPattern {
        try AHAPReader.read(try bytes(interop.appendingPathComponent("ahap/\(name)")))
    }

    static func appleSample(_ name: String) throws -> LoadedPattern {
        try AHAPReader.read(try bytes(apple.appendingPathComponent(name)))
    }

    static func haptic(_ name: String, validation: LofeltHapticReader.Validation = .legacyCompatibility) throws -> LoadedPattern {
        try LofeltHapticReader.read(try bytes(interop.appendingPathComponent("haptic/test-data/\(name)")), validation: validation)
    }

    static func example(_ name: String) throws -> LoadedPattern {
        try AHAPReader.read(try bytes(repositoryRoot.appendingPathComponent("Examples/\(name)")))
    }
}

/// Parses AHAP text that must load, for tests that build documents inline.
func load(_ text: String) throws -> LoadedPattern { try AHAPReader.read(text) }

/// The error an AHAP text must produce.
func loadError(_ text: String) -> PatternLoadError? {
    do {
        _ = try AHAPReader.read(text)
        return nil
    } catch {
        return error
    }
}
