import ArgumentParser
import Foundation
import Testing

@testable import HapbridgeCLI

/// `hapbridge play` end to end on the default simulated board.
struct PlayCommandTests {
    static let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Hardware/actuators/pmd-c10-100.json").path

    @Test func playingABuiltInHapticCompletesAndPlotsTheAcceleration() async throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: svg) }
        var command = try PlayCommand.parse(["impact.heavy", "--actuator", Self.profile, "--plot", svg])
        try await command.run()
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("<svg") && text.contains("sled acceleration"))
    }

    @Test func badArgumentsAreUsageErrorsNotTraps() throws {
        #expect(throws: (any Error).self) { try PlayCommand.parse(["impact.heavy", "--playback-rate", "0"]) }
        #expect(throws: (any Error).self) { try PlayCommand.parse(["impact.heavy", "--plot", "x.png"]) }
    }
}
