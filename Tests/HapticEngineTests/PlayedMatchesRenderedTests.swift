import DRV2605
import Foundation
import HapticCompilation
import HapticEngine
import Haptics
import Testing

/// What plays is what renders, on the chip: the engine on the simulated board in
/// virtual time, with transients landing on continuous events, checked on the
/// RTP_INPUT (0x02) and OL_LRA_PERIOD (0x20) writes the chip model received.
/// HapticCompilationTests' RenderedDriveTests holds the compiled program to the
/// rendered timeline sample by sample; here the chip must receive that program, and
/// the burst rule's figures (worked by hand from DriveCompiler's rule 3) must show
/// on it: the burst adds to the continuous drive and brakes back to it. The pattern
/// layer's rule this follows (README, "Rendering rules"): "Overlapping continuous
/// events add intensities, clipped at 1; sharpness is the intensity-weighted mean of
/// the events playing."
@Suite struct PlayedMatchesRenderedTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/compilation/transient-on-continuous.ahap")

    /// A started engine and a start time 50 ms ahead, in whole µs.
    func setUp(_ actuator: String, _ variant: DeviceVariant) async throws -> (HapticEngine, Double, Int64) {
        let engine = try makeEngine(profile: actuator, variant: variant)
        try await engine.start()
        let t = ((await engine.currentTime + 0.05) * 1e6).rounded() / 1e6
        return (engine, t, Int64((t * 1e6).rounded()))
    }

    /// The chip's RTP and period writes from `start` on, as commands at µs from `start`.
    func chipCommands(_ engine: HapticEngine, from start: Int64) async -> [TimedCommand] {
        await onBoard(engine) { d in
            d.board.registerWrites.filter { ($0.register == 0x02 || $0.register == 0x20) && Int64($0.boardTime) >= start }.map {
                TimedCommand(
                    time: Int64($0.boardTime) - start,
                    command: $0.register == 0x02 ? .rtp(Int8(bitPattern: $0.value)) : .register(0x20, $0.value))
            }
        }
    }

    @Test(
        "the chip receives the compiled program of transients landing on a continuous event",
        arguments: [("pmd-c10-100", DeviceVariant.drv2605L), ("pmd-c10-100", .drv2605), ("pmd-307-103", .drv2605L)])
    func theChipPlaysTheCompiledProgram(_ actuator: String, _ variant: DeviceVariant) async throws {
        let pattern = try AHAPReader.read(try String(contentsOf: Self.example, encoding: .utf8)).pattern
        let (engine, t, start) = try await setUp(actuator, variant)
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.6)
        let program = DeviceProgram.compile(try Renderer.render(pattern), for: try DriveTarget(profile: try profile(actuator), variant: variant))
        let played = await chipCommands(engine, from: start)
        #expect(program.commands.count > 10)
        #expect(played == program.commands)
        #expect(await engine.statistics.lateCommands == 0)
        #expect(await engine.statistics.boardUnderruns == 0)
    }

    @Test("on the chip a transient's burst adds to the continuous drive and brakes back to it, not below")
    func theBurstAddsOnTheChip() async throws {
        // The example on the C10-100 (DRV2605L): the continuous event (I = 0.7, S = ½)
        // from 60 ms is 0.66551 × 0.49 = 0.32610 → 41; the transient with it (I = 1,
        // S = ½) overdrives 0.32610 + 1, clipped → 127, for 2.5 periods of 175 Hz
        // (14286 µs), then brakes by what it added, 0.67390: −0.34780 → −44, for one
        // period (5714 µs); the one at 210 ms (I = 0.6, S = 1) adds 0.36: 0.68610 → 87
        // for two periods of 208.11 Hz (9610 µs), brakes to −0.03390 → −4 for 4805 µs.
        let pattern = try AHAPReader.read(try String(contentsOf: Self.example, encoding: .utf8)).pattern
        let (engine, t, start) = try await setUp("pmd-c10-100", .drv2605L)
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: t)
        try await engine.advance(bySeconds: 0.6)
        let rtp = await chipCommands(engine, from: start).compactMap { c -> (Int64, Int8)? in
            if case .rtp(let a) = c.command { (c.time, a) } else { nil }
        }
        func drive(at us: Int64) -> Int8? { rtp.last { $0.0 <= us }?.1 }
        #expect(drive(at: 60_000) == 127)
        #expect(drive(at: 60_000 + 14_286) == -44)
        #expect(drive(at: 60_000 + 14_285) == 127)
        #expect(drive(at: 60_000 + 20_000) == 41)
        #expect(drive(at: 210_000) == 87)
        #expect(drive(at: 210_000 + 9_610) == -4)
        #expect(drive(at: 210_000 + 14_415) == 41)
        #expect(drive(at: 360_000) == 0)
        // While the continuous event plays nothing drives harder in reverse than the
        // deepest brake share (−44), let alone −127.
        #expect(rtp.filter { $0.0 >= 60_000 && $0.0 < 360_000 }.allSatisfy { $0.1 >= -44 })
    }

    @Test("a transient from one player adds to another player's continuous drive")
    func playersMixTransientsIntoTheContinuousDrive() async throws {
        let (engine, t, start) = try await setUp("pmd-c10-100", .drv2605L)
        let a = try await engine.makePlayer(with: .buzz(0.2, intensity: 0.7, sharpness: 0.5))
        let b = try await engine.makePlayer(with: HapticPattern(events: [.transient(at: 0, intensity: 1, sharpness: 0.5)]))
        try await a.start(atTime: t)
        try await b.start(atTime: t + 0.05)
        try await engine.advance(bySeconds: 0.4)
        let rtp = await rtpWrites(engine).filter { $0.time >= start }.map { ($0.time - start, $0.amplitude) }
        // A alone: 41. B's burst on it: 127, brake −44, then A's 41 again (as above).
        #expect(rtp.map(\.1) == [41, 127, -44, 41, 0])
        #expect(rtp.map(\.0) == [0, 50_000, 64_286, 70_000, 200_000])
    }
}
