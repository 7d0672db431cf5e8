import Foundation
import Testing
@testable import HapbridgeCLI

/// The CLI as a user runs it: parse arguments, run, read the file it wrote.
@Suite struct RenderCommandTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("hapbridge-test-\(UUID().uuidString)").path
        var command = try HapbridgeCommand.parseAsRoot(arguments + ["--output", output])
        try command.run()
        defer { try? FileManager.default.removeItem(atPath: output) }
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test func svgIsAPlotWithTimeAxisTracesTransientsTitleAndLegend() throws {
        let svg = try run(["render", Self.root.appendingPathComponent("Examples/SOS.ahap").path, "--format", "svg"])
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.contains(">SOS.ahap</text>"))
        #expect(svg.contains("time (ms)"))
        #expect(svg.contains(">intensity</text>") && svg.contains(">sharpness</text>"))
        // Six transients, each a stem with a dot and a hover note.
        #expect(svg.components(separatedBy: "<circle").count - 1 == 6 + 1)  // + the legend's dot
        #expect(svg.contains("transient at 2800 ms: intensity 1, sharpness 1"))
    }

    @Test func csvHasOneRowPerSampleAndPerTransient() throws {
        let csv = try run(["render", Self.root.appendingPathComponent("Examples/SOS.ahap").path, "--format", "csv", "--rate", "100"])
        let lines = csv.split(separator: "\n")
        #expect(lines.first == "kind,time_ms,intensity,sharpness")
        // 2.8 s at 100 Hz: samples 0...280 -> 281 rows, then 6 transients.
        #expect(lines.filter { $0.hasPrefix("sample,") }.count == 281)
        #expect(lines.filter { $0.hasPrefix("transient,") }.count == 6)
        #expect(lines.contains("sample,600,1,1") && lines.contains("sample,1100,0,0"))
    }

    @Test func jsonCarriesSamplesTransientsAndTheRates() throws {
        let json = try run(["render", "ios.notification.success", "--format", "json", "--playback-rate", "2"])
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        #expect(object["playbackRate"] as? Double == 2)
        let transients = object["transients"] as! [[String: Double]]
        #expect(transients.map { $0["time_ms"] } == [0, 50])
    }

    @Test func badOptionsFailValidationWithAClearMessage() {
        #expect(throws: (any Error).self) { try HapbridgeCommand.parseAsRoot(["render", "x.ahap", "--rate", "0"]) }
        #expect(throws: (any Error).self) { try HapbridgeCommand.parseAsRoot(["render", "x.ahap", "--playback-rate", "-1"]) }
    }

    @Test func anUnknownPatternNamesTheLibrary() throws {
        var command = try HapbridgeCommand.parseAsRoot(["render", "no-such-thing"])
        #expect { try command.run() } throws: { "\($0)".contains("see `hapbridge library` for the built-in names") }
    }

    @Test func libraryExportWritesAHAPThatRendersBack() throws {
        let ahap = try run(["library", "export", "watchos.retry"])
        #expect(ahap.contains("\"HapticTransient\""))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retry-\(UUID().uuidString).ahap")
        try ahap.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let csv = try run(["render", file.path, "--format", "csv"])
        #expect(csv.split(separator: "\n").filter { $0.hasPrefix("transient,") }.count == 3)
    }
}
