import BridgeLink
import Foundation
import HapticCompilation
import HapticEngine
import Haptics
import SimavrBridgeDevice
import Testing

/// Transients every 0.5 ms of the timeline: at playback rate 4, eight a millisecond of
/// board time, each a different level (`PacingTests`' 100,000 transients, cut short:
/// the ELF runs cycle by cycle).
func denseTransients(count: Int) -> HapticPattern {
    let levels = [0.4, 0.7, 1.0, 0.55]
    return HapticPattern(events: (0..<count).map { .transient(at: Double($0) * 0.0005, intensity: levels[$0 % 4], sharpness: 0.5) })
}

/// The most of `times` (sorted, µs) in any window [t, t + width).
func densest(_ times: [Double], width: Double) -> Int {
    var best = 0, start = 0
    for end in times.indices {
        while times[end] - times[start] >= width { start += 1 }
        best = max(best, end - start + 1)
    }
    return best
}

@Suite(.serialized, .enabled(if: simavrRuns, "the firmware ELF and sim-harness are not built: \(SimavrBridgeDevice.buildHint)"))
struct OverloadOnFirmwareTests {
    func engine(writeSpacing: Int64?) throws -> HapticEngine {
        var options = HapticEngine.Options(driving: .manual)
        options.writeSpacingMicroseconds = writeSpacing
        return HapticEngine(link: BridgeLink(transport: try SimavrBridgeDevice(packageRoot: packageRoot)), actuator: try profile(), options: options)
    }

    @Test("eight transients a millisecond reach the firmware paced to the intake its HELLO_REPLY states: every write on time, none behind")
    func denseTransientsArePacedToTheFirmwaresIntake() async throws {
        let engine = try engine(writeSpacing: nil)
        let reasons = Recorded<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        // The ELF states its intake (WRITE_SPACING_US in the port) and the engine paces by it.
        let stated = await engine.statistics
        let spacing = stated.boardWriteSpacingMicroseconds
        #expect(spacing >= Int64(FirmwareBus.burstWriteMicroseconds) && stated.writeSpacingMicroseconds == spacing)
        // What start-up sent and wrote (the setup block shares one stamp) is not the stream's.
        _ = await onDevice(engine) { d in (d.takeI2CLog(), d.takeSentTransfers()) }
        let pattern = denseTransients(count: 1600), rate = 4.0
        let player = try await engine.makeAdvancedPlayer(with: pattern)
        try await player.setPlaybackRate(rate)
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 0.25)
        await engine.callbacksDelivered()
        let s = await engine.statistics
        #expect(reasons.values.isEmpty)
        #expect(await engine.isRunning)
        #expect(s.lateCommands == 0 && s.boardUnderruns == 0 && s.rejectedFrames == 0, "\(s)")
        #expect(s.mergedWrites > 0)
        // As many stamps as the pacing lets through over the pattern's board time (one
        // a spacing, less a few: a stamp carrying two writes holds the next back two),
        // and in any millisecond at most that many.
        let paced = pattern.duration / rate * 1e6 / Double(spacing)
        let stamps = await sentCommands(engine).compactMap(\.stamp).map(Double.init)
        #expect(Double(stamps.count) >= 0.9 * paced, "\(stamps.count) stamps, paced \(paced)")
        let intake = Int(BoardIntake.writesPerMillisecond(spacing: spacing).rounded(.up))
        #expect(densest(stamps.sorted(), width: 1000) <= intake)
        // The chip's bus: RTP writes start a spacing apart (less a status poll's delay
        // to one of them: 0 underruns says none started 100 µs late).
        let starts = await writes(engine).filter { $0.register == 0x02 }.map(\.startBoardMicroseconds)
        #expect(Double(starts.count) >= 0.9 * paced, "\(starts.count) RTP writes, paced \(paced)")
        let gaps = zip(starts, starts.dropFirst()).map { $1 - $0 }
        #expect(gaps.min().map { $0 >= Double(spacing) * 0.9 } ?? false, "\(gaps.min() ?? 0)")
        await engine.stop()
    }

    @Test("unpaced, eight writes a millisecond outrun the firmware: the engine stops saying the board fell behind, not host silence")
    func anOutrunBoardStopsWithTheOverloadNamed() async throws {
        let engine = try engine(writeSpacing: 0)
        let reasons = Recorded<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        let player = try await engine.makeAdvancedPlayer(with: denseTransients(count: 8000))
        try await player.setPlaybackRate(4)
        try await player.start(atTime: 0)
        try await engine.advance(bySeconds: 1.2)
        await engine.callbacksDelivered()
        let stats = await engine.statistics
        let reason = try #require(reasons.values.first, "the engine did not stop: \(stats)")
        guard case .boardFellBehind(let overload) = reason else {
            Issue.record("stopped for \(reason), not the overload")
            return
        }
        #expect("\(reason)".contains("the board fell behind"))
        #expect(!"\(reason)".contains("no frame from the host"))
        #expect(overload.underruns > 0)
        #expect(overload.writeSpacingMicroseconds == 0)
        #expect(!(await engine.isRunning))
    }
}

/// Values from the engine's callback queue, read by the test (every access holds
/// the lock: the `@unchecked Sendable` is sound).
final class Recorded<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var values: [T] { lock.withLock { items } }
}
