import BridgeLink
import BridgeProtocol
import Foundation
import HapticEngine
import Haptics
import SimavrBridgeDevice
import Testing

/// The measurement behind the ATmega32U4's intake (`WRITE_SPACING_US`, Firmware/README.md
/// "Intake"), run on demand: `HAPBRIDGE_MEASURE_INTAKE=280,300,400 swift test --filter
/// IntakeMeasurement` streams dense transients at each spacing (µs of board time between
/// stamped writes) and prints the board's underruns and the STOP of each stamp's first write at or after it (where the chip takes it).
/// `HAPBRIDGE_MEASURE_INTAKE_TRANSIENTS` sets the length (40,000: 5 s of board time).
let intakeSpacings = (ProcessInfo.processInfo.environment["HAPBRIDGE_MEASURE_INTAKE"] ?? "")
    .split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }

@Suite(.serialized, .enabled(if: !intakeSpacings.isEmpty && simavrBuilt, "set HAPBRIDGE_MEASURE_INTAKE=<µs,...> to measure"))
struct IntakeMeasurement {
    @Test("the firmware's intake: underruns and latch − stamp of a dense stream paced at each spacing")
    func measure() async throws {
        let transients = Int(ProcessInfo.processInfo.environment["HAPBRIDGE_MEASURE_INTAKE_TRANSIENTS"] ?? "") ?? 40_000
        for spacing in intakeSpacings {
            var options = HapticEngine.Options(driving: .manual)
            options.writeSpacingMicroseconds = spacing
            let engine = HapticEngine(link: BridgeLink(transport: try SimavrBridgeDevice(packageRoot: packageRoot)), actuator: try profile(), options: options)
            await engine.setStoppedHandler { _ in }
            try await engine.start()
            _ = await onDevice(engine) { d in (d.takeI2CLog(), d.takeSentTransfers()) }
            let player = try await engine.makeAdvancedPlayer(with: denseTransients(count: transients))
            try await player.setPlaybackRate(4)
            try await player.start(atTime: 0)
            try await engine.advance(bySeconds: Double(transients) * 0.0005 / 4 + 0.05)
            await engine.callbacksDelivered()
            let s = await engine.statistics
            let stamps = Array(Set(await sentCommands(engine).compactMap(\.stamp).map(Double.init))).sorted()
            let log = await writes(engine)
            var j = 0
            var late: [Double] = []
            for stamp in stamps {
                while j < log.count, log[j].stopBoardMicroseconds < stamp - FirmwareBus.latchEarlyMicroseconds { j += 1 }
                if j < log.count { late.append(log[j].stopBoardMicroseconds - stamp) }
            }
            late.sort()
            let p = { (q: Double) in late.isEmpty ? .nan : late[min(late.count - 1, Int(Double(late.count) * q))] }
            print(
                "# intake at \(spacing) µs: \(s.commandsSent) commands, \(s.boardUnderruns) board underruns, \(s.lateCommands) late, "
                    + "\(s.rejectedFrames) rejected, board lag high water \(s.boardLagHighWater) µs; latch − stamp over \(late.count) stamps: "
                    + "p50 \(p(0.5)) p99 \(p(0.99)) max \(late.last ?? .nan) µs, over 90 µs \(late.filter { $0 > 90 }.count)")
            await engine.stop()
        }
    }
}
