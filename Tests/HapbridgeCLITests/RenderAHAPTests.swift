import Foundation
import Testing
import Haptics
@testable import HapbridgeCLI

/// `render --format ahap`, `--curve-times`, `--sharpness-control` and the JSON
/// duration, through the built executable as a user runs it.
@Suite struct RenderAHAPTests {
    static let meta = Hapbridge.path("Tests/Fixtures/meta-haptics-sdk")

    func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("render-ahap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func object(_ path: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    func entries(_ document: [String: Any]) -> [[String: Any]] { document["Pattern"] as? [[String: Any]] ?? [] }

    @Test("a .haptic file renders as Meta's AHAP pair: out.ahap (curves and continuous events) and out-transients.ahap (the emphasis, unscaled)")
    func hapticWritesMetasSplitPair() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.ahap").path
        let run = try Hapbridge.run(["render", "\(Self.meta)/multiple_emphasis.haptic", "--format", "ahap", "-o", out])
        #expect(run.status == 0, "\(run.err)")
        let continuous = entries(try object(out))
        let transients = entries(try object(dir.appendingPathComponent("out-transients.ahap").path))
        #expect(continuous.contains { $0["ParameterCurve"] != nil } && continuous.allSatisfy { entry in
            (entry["Event"] as? [String: Any])?["EventType"] as? String != "HapticTransient"
        })
        #expect(transients.count == 18 && transients.allSatisfy { $0["Event"] != nil })
        let first = try #require((transients.first?["Event"] as? [String: Any])?["EventParameters"] as? [[String: Any]])
        let intensity = try #require(first.first { $0["ParameterID"] as? String == "HapticIntensity" }?["ParameterValue"] as? Double)
        #expect(abs(intensity - 0.7745967) < 1e-6)
        #expect(run.err.contains("out.ahap (continuous)") && run.err.contains("out-transients.ahap (18 transients"))
    }

    @Test("a .haptic file with no emphasis writes one file; with emphasis to standard output it asks for --output")
    func pairNeedsAFileName() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("plain").path
        let run = try Hapbridge.run(["render", "\(Self.meta)/3_points.haptic", "--format", "ahap", "-o", out])
        #expect(run.status == 0, "\(run.err)")
        #expect(FileManager.default.fileExists(atPath: out) && !FileManager.default.fileExists(atPath: out + "-transients.ahap"))

        let refused = try Hapbridge.run(["render", "\(Self.meta)/valid_v1.haptic", "--format", "ahap"])
        #expect(refused.status != 0 && refused.stdout.isEmpty)
        #expect(refused.err.contains("give --output FILE.ahap to write FILE.ahap and FILE-transients.ahap"))
        #expect(RenderCommand.transientsPath(for: "a/b.AHAP") == "a/b-transients.AHAP")
        #expect(RenderCommand.transientsPath(for: "dir.ahap/x") == "dir.ahap/x-transients.ahap")
        #expect(RenderCommand.transientsPath(for: "a/.ahap") == "a/.ahap-transients.ahap")
    }

    @Test("an AHAP renders to one AHAP document on standard output that reads back to the same timeline")
    func ahapWritesOneDocument() throws {
        let run = try Hapbridge.run(["render", Hapbridge.path("Examples/SOS.ahap"), "--format", "ahap"])
        #expect(run.status == 0, "\(run.err)")
        let reread = try Hapbridge.run(["render", "-", "--format", "csv"], stdin: run.stdout)
        let original = try Hapbridge.run(["render", Hapbridge.path("Examples/SOS.ahap"), "--format", "csv"])
        #expect(reread.status == 0 && reread.out == original.out && !original.out.isEmpty)
    }

    @Test("absolute-looking curve times warn with their path and name --curve-times absolute, which reads them from the curve's start")
    func curveTimesWarningAndOption() throws {
        let file = "\(Self.meta)/multiple_emphasis.ahap"
        let relative = try Hapbridge.run(["render", file, "--format", "csv"])
        #expect(relative.status == 0)
        #expect(relative.errLines.contains { $0.contains("Pattern[1].ParameterCurve.ParameterCurveControlPoints[0].Time") && $0.hasSuffix("use --curve-times absolute") })
        let absolute = try Hapbridge.run(["render", file, "--format", "csv", "--curve-times", "absolute"])
        #expect(absolute.status == 0 && !absolute.err.contains("--curve-times"))
        // The sharpness curve (Time 0.01) has its second point at 0.02 s: reached at
        // 20 ms when absolute; by Core Haptics' rule its first point sits at 20 ms.
        #expect(absolute.out.contains("\nsample,20,0.357771,0.734847\n"))
        #expect(relative.out.contains("\nsample,20,0.357771,0.994987\n"))
    }

    @Test("--sharpness-control all gives CHHapticParameter.h's reading: Close.ahap's end transient plays at sharpness 0.6, not 1")
    func sharpnessControlOption() throws {
        let close = Hapbridge.path("Tests/Fixtures/apple-unityplugins/Close.ahap")
        let article = try Hapbridge.run(["render", close, "--format", "csv"])
        let header = try Hapbridge.run(["render", close, "--format", "csv", "--sharpness-control", "all"])
        #expect(article.out.contains("transient,110,0.9,1\n"))
        #expect(header.out.contains("transient,110,0.9,0.6\n"))
        let bad = try Hapbridge.run(["render", close, "--sharpness-control", "some"])
        #expect(bad.status != 0 && bad.err.contains("--sharpness-control"))
    }

    @Test("play takes --curve-times and --sharpness-control, as render does")
    func playTakesTheReadingOptions() throws {
        let parsed = try HapbridgeCommand.parseAsRoot(["play", "x.ahap", "--curve-times", "absolute", "--sharpness-control", "all"])
        let play = try #require(parsed as? PlayCommand)
        #expect(play.reading.controlPointTimes == .absolute && play.reading.sharpnessControlScope == .allHapticEvents)
    }

    @Test("a duration in render's JSON is rounded to the microsecond: 0.1 s + 0.2 s is 300 ms, not 300.00000000000006")
    func jsonDurationToTheMicrosecond() throws {
        let pattern = #"{"Pattern": [{"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.2}}]}"#
        let run = try Hapbridge.run(["render", "-", "--format", "json"], stdin: Array(pattern.utf8))
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("\"duration_ms\":300,"))
    }
}
