import BridgeLink
import Actuators
import ArgumentParser
import Foundation
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

@testable import HapbridgeCLI

/// `hapbridge play` end to end on the default simulated board: it never stops
/// early without saying why, never floods the terminal, and refuses settings the
/// engine cannot play before it starts.
@Suite struct PlayCommandTests {
    static let profile = Hapbridge.path("Hardware/actuators/pmd-c10-100.json")

    @Test("Playing a built-in haptic completes and plots the acceleration")
    func playingABuiltInHapticCompletesAndPlotsTheAcceleration() async throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: svg) }
        let run = try Hapbridge.run(["play", "impact.heavy", "--actuator", Self.profile, "--plot", svg])
        #expect(run.status == 0, "\(run.err)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("<svg") && text.contains("acceleration: model (simulated sled)"))
        #expect(run.out.contains("plot: \(svg)"))
    }

    @Test("play --plot and --record with a LIS3DH fitted say the acceleration came from the sensor: the plot's legend and subtitle, the record's acceleration object, the report line")
    func playSaysTheSensorWasTheSource() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("play.svg").path, record = directory.appendingPathComponent("play.json").path
        let run = try Hapbridge.run(["play", "impact.heavy", "--actuator", Self.profile, "--device", "sim", "--accelerometer", "--plot", svg, "--record", record])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("peak acceleration: ") && run.out.contains(", sensor (LIS3DH, "), "\(run.out)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("acceleration: sensor (LIS3DH, ") && text.contains(" samples at 1344 Hz)"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        let acceleration = try #require(object["acceleration"] as? [String: Any])
        #expect(acceleration["source"] as? String == "sensor" && acceleration["sourceDevice"] as? String == "LIS3DH")
        #expect((acceleration["peakG"] as? Double ?? 0) > 0.1 && (acceleration["samples"] as? Double ?? 0) > 20)
        // Without the sensor the same record says the model gave it.
        let bare = try Hapbridge.run(["play", "impact.heavy", "--actuator", Self.profile, "--device", "sim", "--record", record])
        #expect(bare.status == 0, "\(bare.err)")
        let modelRecord = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        #expect((modelRecord["acceleration"] as? [String: Any])?["source"] as? String == "model")
    }

    @Test("Drive held past the board's 30 s limit stops early with the reason and status 3")
    func driveTimeLimitIsReported() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two continuous events back to back: the drive never reaches 0 for 40 s.
        let file = try Patterns.write(
            Patterns.document([Patterns.continuous(at: 0, duration: 30), Patterns.continuous(at: 30, duration: 10)]), named: "long.ahap", in: directory)
        let run = try Hapbridge.run(["play", file])
        #expect(run.signal == nil && run.status == ExitStatus.incomplete.rawValue, "\(run.err)")
        let stop = try #require(run.errLines.first { $0.hasPrefix("stopped early") })
        #expect(stop.contains("of 40000 ms") && stop.contains("maximum continuous drive time") && stop.contains("30 s"))
        // What was measured is still reported.
        #expect(run.out.contains("done: ") && run.out.contains("peak acceleration: "))
    }

    @Test("Progress off a terminal is a line per tenth of the pattern, not one per 50 ms")
    func progressIsBoundedOffATerminal() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Patterns.write(Patterns.document((0..<12).map { Patterns.transient(at: Double($0) * 5) }), named: "sparse.ahap", in: directory)
        let run = try Hapbridge.run(["play", file])
        #expect(run.status == 0, "\(run.err)")
        let progress = run.errLines.filter { $0.contains(" ms [") }
        // 55 s of pattern in 50 ms steps would be 1,100 lines.
        #expect((2...11).contains(progress.count), "\(progress.count) progress lines")
        #expect(progress.last?.contains("55000 / 55000 ms [####################]") == true)
        #expect(!run.err.contains("\r"))
    }

    @Test("On a terminal, progress is one line redrawn at most ten times a second of wall time")
    func progressRedrawsInPlace() throws {
        var written: [String] = []
        var clock = ContinuousClock.now
        var line = ProgressLine(style: .inPlace, now: { clock }, write: { written.append($0) })
        for step in 0..<10 {
            try line.update("step \(step)", fraction: Double(step) / 10)
            clock = clock.advanced(by: .milliseconds(40))
        }
        try line.finish("done")
        // Redrawn at 0, 120 and 240 ms (40 ms apart, 100 ms at least), then the end.
        #expect(written == ["\rstep 0", "\rstep 3", "\rstep 6", "\rstep 9", "\rdone  ", "\n"])
    }

    @Test("Off a terminal, a line at each tenth and the end once")
    func progressLinesAtTenths() throws {
        var written: [String] = []
        var line = ProgressLine(style: .lines, write: { written.append($0) })
        for step in 0...40 { try line.update("at \(step * 25)", fraction: Double(step) / 40) }
        try line.finish("at 1000")
        #expect(written == (0...10).map { "at \($0 * 100)\n" })
    }

    @Test("--playback-rate is refused outside the engine's range before anything plays, and its help says the range")
    func playbackRateIsValidatedUpFront() async throws {
        let profile = try loadActuatorProfile(Self.profile)
        let engine = HapticEngine(link: BridgeLink(transport: SimulatedBridgeDevice(board: SimulatedBoard(profile: profile))), actuator: profile)
        #expect(await engine.capabilities.playbackRateRange == PlaybackRateOption.range)
        for rate in ["1e-16", "0", "-1", "100.5", "nan", "inf", "1e308"] {
            let run = try Hapbridge.run(["play", "impact.heavy", "--playback-rate", rate])
            #expect(run.signal == nil && run.status == 2, "\(rate): \(run.err)")
            #expect(run.out.isEmpty, "\(rate): the engine was not started")
            let render = try Hapbridge.run(["render", "impact.heavy", "--playback-rate", rate])
            #expect(render.signal == nil && render.status == 2, "render \(rate): \(render.err)")
        }
        let help = try Hapbridge.run(["play", "--help"])
        #expect(help.out.contains("0.01 to 100"))
    }

    /// The engine as `play` sets it up (default options, manual driving), over a link
    /// of `latency` µs: how many commands left too late to reach the board on time.
    func lateCommands(latency: UInt64, pattern: HapticPattern) async throws -> Int {
        let profile = try loadActuatorProfile(Self.profile)
        let device = SimulatedBridgeDevice(board: SimulatedBoard(profile: profile), link: .init(latencyMicroseconds: latency))
        let engine = HapticEngine(link: BridgeLink(transport: device), actuator: profile, options: .init(driving: .manual))
        try await engine.start()
        let player = try await engine.makeAdvancedPlayer(with: pattern)
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: pattern.duration + 0.1)
        let late = await engine.statistics.lateCommands
        await engine.stop()
        return late
    }

    @Test("--link-latency is refused past what the engine works with: up to it the stream is on time, past it the engine cannot start")
    func linkLatencyLimitIsTheEngines() async throws {
        let limit = PlayCommand.maxLinkLatencyMicroseconds
        #expect(Int64(limit) == HapticEngine.Options().maximumLinkLatencyMicroseconds(canReplace: true))
        let pattern = try AHAPReader.read(Array(Patterns.busy(seconds: 3).utf8)).pattern
        // The board streams far ahead (protocol 1.1): at the limit nothing is late.
        for latency in [500, 10_000, limit] {
            #expect(try await lateCommands(latency: UInt64(latency), pattern: pattern) == 0, "\(latency) µs")
        }
        // Well past it the start-up's clock sync cannot finish in time.
        await #expect(throws: HapticEngineError.startTimeout) { try await self.lateCommands(latency: limit * 2, pattern: pattern) }

        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Patterns.write(Patterns.busy(seconds: 1), named: "busy.ahap", in: directory)
        let atLimit = try Hapbridge.run(["play", file, "--link-latency", "\(limit)"])
        #expect(atLimit.status == 0, "\(atLimit.err)")
        let over = try Hapbridge.run(["play", file, "--link-latency", "\(limit + 1)"])
        #expect(over.status == 2 && over.err.contains("--link-latency is at most \(limit) µs"))
    }

    @Test("play reports the audio events it does not play, as render does")
    func audioEventsAreReported() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Patterns.write(Patterns.document([Patterns.audio, Patterns.transient(at: 0)]), named: "audio.ahap", in: directory)
        let play = try Hapbridge.run(["play", file])
        #expect(play.status == 0)
        #expect(play.errLines.contains("audio.ahap: 1 audio event is kept but not played (the bench plays haptics only)"))
        let render = try Hapbridge.run(["render", file, "-o", "/dev/null"])
        #expect(render.errLines.contains("audio.ahap: 1 audio event is kept but not rendered (the bench plays haptics only)"))
    }

    @Test("Bad arguments are usage errors, not traps")
    func badArgumentsAreUsageErrorsNotTraps() throws {
        #expect(throws: (any Error).self) { try PlayCommand.parse(["impact.heavy", "--playback-rate", "0"]) }
        #expect(throws: (any Error).self) { try PlayCommand.parse(["impact.heavy", "--plot", "x.png"]) }
        #expect(throws: (any Error).self) { try PlayCommand.parse(["impact.heavy", "--plot", "-"]) }
        #expect(throws: Never.self) { try PlayCommand.parse(["impact.heavy", "--plot", "/dev/null"]) }
    }
}
