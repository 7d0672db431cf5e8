import Actuators
import BridgeLink
import FTDIBridge
import Foundation
import HapticEngine
import Haptics
import HostedBoard

/// What the client measured on the FT232H: each stamped RTP write's actual − stamp
/// (µs; actual is when the transfer was handed to libftdi), how long the timer thread
/// spent handing it over (its answer is the reader thread's), the most answers
/// outstanding at once, the timer thread's CPU per second of play, and the engine's
/// own tally.
struct HostedFigures {
    var late: Stats
    var handOver: Stats
    var deepestBacklog: Int
    /// The writes more than 100 µs late, each put down to what held it (`lateCause`).
    var lateCauses: [String: Int]
    var timerCPUPerSecond: Double
    var scheduling: String
    var commandsSent: Int
    var lateCommands: Int
    var underruns: Int
}

/// `count` events of `periodMicroseconds`, each a new RTP amplitude (their intensity
/// alternates), played by the engine over the hosted core
/// on the first FT232H (this process runs as COMMAND under `hapbridge emulate ft232h`,
/// or with one plugged in).
let burstSeconds = 20.0
let restSeconds = 0.02

func hostedEvents(count: Int, periodMicroseconds: Int64, priority: Int32?, spinMicroseconds: UInt16) async throws -> HostedFigures {
    let port = try FT232HHostedI2C(serial: nil)
    var configuration = HostedBoard.Configuration(serial: Array("BENCH".utf8), spinMicroseconds: spinMicroseconds)
    configuration.priority = priority
    configuration.writeTimeCapacity = count + 1000
    let board = HostedBoard(port: port, configuration: configuration)
    var options = HapticEngine.Options(driving: .automatic)
    // The envelope updated at 1 kHz; each event two control steps or more, so every one
    // is sampled whatever the rounding of its edges (`stepSeconds`: 1 ms events on a
    // 1 ms grid alias).
    options.controlStepMicroseconds = 1000
    let engine = HapticEngine(
        link: BridgeLink(transport: HostedBoardTransport(board: board, summary: "FT232H (benchmark)", adapterName: "FT232H")), actuator: try ActuatorProfileLoader.resolve("pmd-c10-100"), options: options)
    try await engine.start()
    let step = Double(periodMicroseconds) / 1e6
    // A drive is cut after 30 s (the board's safety limit, HB_MAX_DRIVE_LIMIT_MS), so a
    // long run drives in bursts of 20 s with 20 ms of rest between them.
    let perBurst = Int(burstSeconds / step)
    let pattern = HapticPattern(events: (0..<count).map { i in
        .continuous(at: Double(i) * step + Double(i / perBurst) * restSeconds, duration: step, intensity: i % 2 == 0 ? 1.0 : 0.6, sharpness: 0.5)
    })
    let player = try await engine.makePlayer(with: pattern)
    _ = board.drainWriteTimes()
    let cpuBefore = board.timerThreadCPUNanoseconds ?? 0
    let wallBefore = monotonicNanoseconds()
    try await player.start(atTime: 0)
    try await Task.sleep(for: .milliseconds(Int((Double(count) * step + Double(count / perBurst) * restSeconds) * 1000) + 300))
    let cpu = Double((board.timerThreadCPUNanoseconds ?? cpuBefore) - cpuBefore) / 1e9
    let wall = Double(monotonicNanoseconds() - wallBefore) / 1e9
    let statistics = await engine.statistics
    await engine.stop()
    // Stamped RTP_INPUT writes only: the timer's, each made for one command's stamp.
    let all = board.drainWriteTimes()
    let writes = all.filter { $0.bytes.first == 0x02 && $0.stampNanoseconds != nil }
    board.stop()  // the chip to standby, EN low (the transport's close does the same when the engine goes)
    return HostedFigures(
        late: Stats(samples: writes.compactMap { $0.lateNanoseconds.map { Double($0) / 1000 } }),
        handOver: Stats(samples: writes.map { Double($0.answeredNanoseconds &- $0.sentNanoseconds) / 1000 }),
        deepestBacklog: port.deepestAnswerBacklog, lateCauses: lateCauses(all),
        timerCPUPerSecond: cpu / wall, scheduling: board.scheduling.description,
        commandsSent: statistics.commandsSent, lateCommands: statistics.lateCommands, underruns: statistics.boardUnderruns)
}

/// What held each write that left more than 100 µs after its stamp (the core's
/// underrun), from the timer thread's trace: the service thread holding the core's lock,
/// the timer thread still in the previous write's hand-over when it was due, a wake-up
/// late past the stamp (the kernel's timer), or none of those: the thread lost its CPU
/// between waking and handing the write over (the machine: a hypervisor's or an
/// interrupt's gap, which a spinning SCHED_FIFO thread sees too).
func lateCauses(_ all: [HostedWriteTime]) -> [String: Int] {
    var causes: [String: Int] = [:]
    var previousAnswered: UInt64 = 0
    for w in all {
        defer { previousAnswered = max(previousAnswered, w.answeredNanoseconds) }
        guard let late = w.lateNanoseconds, late > 100_000, let stamp = w.stampNanoseconds, let t = w.timer else { continue }
        let cause: String
        if t.lockedNanoseconds &- t.wokeNanoseconds > 100_000 && t.lockedNanoseconds > stamp + 100_000 {
            cause = "core lock held elsewhere"
        } else if previousAnswered >= t.dueNanoseconds && previousAnswered > stamp + 100_000 {
            cause = "previous hand-over still running"
        } else if t.wokeNanoseconds > stamp + 100_000 {
            cause = "woke past the stamp"
        } else {
            cause = "lost the CPU after waking"
        }
        causes[cause, default: 0] += 1
    }
    return causes
}
