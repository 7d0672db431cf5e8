// The engine's timing figures, as percentiles, beside this machine's own baseline
// measured in the same run. Run with `scripts/bench` (release build).
//
// usage: EngineBenchmarks [--quick] [--simavr-only | --emulated-usb-only | --start-latency-only | --discovery-only | --farm-only | --cpu-only | --ft232h-only [--long] | --long-only]
//
// What each figure is:
// - baseline: Task.sleep(until:) wake-up lateness at a 1 ms period on this machine
//   (the reference every timing figure is read against).
// - baseline: a call into an actor on a parked dedicated thread (the engine's kind)
//   until that thread runs it: this machine's cross-thread wake-up, paid once by
//   every engine call.
// - start latency, host path: wall-clock time of `player.start()` until it returns,
//   by when the stamped RTP frame is in the firmware's queue (virtual-time board).
// - start latency to the first I2C write: `start(atTime: now)` until the chip's
//   first RTP_INPUT write, on the simulated board in real time (board clock = host
//   clock), with the engine's own service task running: the goal is < 100 µs p99.
// - event timing: |RTP_INPUT write − stamp| over 10,000 device-timed commands
//   through the look-ahead scheduler: on the simulated board in virtual time (the
//   scheduler alone) and in real time (host jitter included). Goal: < 10 µs p99.9.
// - the same on the real firmware ELF under simavr (SimavrEventTiming.swift):
//   the engine → USB host model → ATmega32U4 firmware → I2C, cycle-accurate.
// - through the product's USB path to the same ELF in real time (EmulatedUSB.swift):
//   the engine → USBBridgeTransport → libusb → umockdev → `hapbridge emulate bridge
//   --firmware elf`: start() until its frame is at the device model, at the firmware
//   and at the chip, and |RTP START − stamp| with the engine's own stamps.
// - host CPU while streaming (CPUCost.swift): CPU seconds per second of Beethoven5 on
//   one simulated board in real time, beside this process's idle cost; then 16 boards
//   from one process with their late commands and underruns.
// - discovery (Discovery.swift): `hapbridge list` over 5, 20 and 126 emulated boards,
//   each run whole (process start to exit); goal: the full bus in < 2 s.
// - farm mode (FarmRun.swift): `hapbridge run` of one suite on one emulated board, then
//   on four at once, each run whole; the one-board run is the baseline; goal: four
//   boards within 1.5× one board's wall time at p50.
// - FT232H (FT232HTiming.swift): host-timed write error (actual − stamp) of the hosted
//   firmware core over 10,000 events 2 ms apart (a 1 kHz envelope) on the emulated FT232H, with and without
//   SCHED_FIFO, beside a cyclictest-like clock_nanosleep baseline at the same period
//   and priority (goal: p99 ≤ 1.2× the baseline's); the spin's CPU cost; the same
//   events through pyftdi from Python. `--long`: ten minutes at 1 kHz, 0 underruns.
import Foundation
import HapticEngine
import SimavrBridgeDevice

func baseline(count: Int) async -> Stats {
    let clock = ContinuousClock()
    var next = clock.now.advanced(by: .milliseconds(1))
    var out: [Double] = []
    for _ in 0..<count {
        try? await Task.sleep(until: next, clock: clock)
        out.append(microseconds(clock.now - next))
        next = next.advanced(by: .milliseconds(1))
    }
    return Stats(samples: out)
}

func report(_ run: TimingRun, _ name: String, expected: Int) {
    print(run.errors.line(name))
    let s = run.statistics
    print("   \(s.commandsSent) commands sent, \(s.lateCommands) late, \(s.boardUnderruns) board underruns, queue high water \(s.queueHighWater); \(run.unmatched) stamps without a chip write")
    if run.errors.samples.count < expected { print("   WARNING: only \(run.errors.samples.count) of \(expected) commands were seen on the chip") }
}

/// One goal's verdict, from the figure just printed (never a pass by default).
func printGoal(_ goal: String, value: Double, limit: Double) {
    print(String(format: "   goal, %@: %@ (%.2f µs)", goal, value <= limit ? "met" : "NOT met", value))
}

func run() async throws {
    if CommandLine.arguments.contains("--burn-cpu") { burnCPU() }
    let quick = CommandLine.arguments.contains("--quick")
    let events = quick ? 1000 : 10_000
    if CommandLine.arguments.contains(EmulatedUSB.clientFlag) {
        return try await EmulatedUSBClient(arguments: CommandLine.arguments).run()
    }
    if CommandLine.arguments.contains(Discovery.clientFlag) { return try Discovery.client(arguments: CommandLine.arguments) }
    if CommandLine.arguments.contains(FarmRun.clientFlag) { return try FarmRun.client(arguments: CommandLine.arguments) }
    if CommandLine.arguments.contains(FT232HTiming.clientFlag) { return try await FT232HTiming.client(arguments: CommandLine.arguments) }
    func ft232h() async throws {
        print("== FT232H: the firmware core hosted in process, host-timed writes 2 ms apart, a 1 kHz envelope (\(events) events; hapbridge emulate ft232h)")
        try await FT232HTiming.run(events: events, long: CommandLine.arguments.contains("--long"), packageRoot: SimavrBridgeDevice.packageRoot() ?? ".")
    }
    if CommandLine.arguments.contains("--ft232h-only") || CommandLine.arguments.contains("--long-only") { return try await ft232h() }
    func discovery() async throws {
        print("== discovery: hapbridge list over emulated boards (hapbridge emulate bridge --firmware core --boards N)")
        print(await baseline(count: quick ? 500 : 2000).line("baseline: Task.sleep lateness, 1 ms period"))
        try Discovery.run(runs: quick ? 3 : 5)
    }
    if CommandLine.arguments.contains("--discovery-only") { return try await discovery() }
    func farm() throws {
        print("== farm mode: hapbridge run, one suite on 1 board and on \(FarmRun.boards) at once (hapbridge emulate bridge --firmware core --boards \(FarmRun.boards))")
        try FarmRun.run(runs: quick ? 3 : 7)
    }
    if CommandLine.arguments.contains("--farm-only") { return try farm() }
    let defaultMargin = HapticEngine.Options().leadMarginMicroseconds
    // --simavr-only / --emulated-usb-only: just that part (the rest takes a minute of real time).
    let simavrOnly = CommandLine.arguments.contains("--simavr-only")
    let usbOnly = CommandLine.arguments.contains("--emulated-usb-only")
    let enginePriority = HapticEngine.Options().serviceThreadPriority
    func wakeBaselines() async {
        print(await wakeBaseline(count: quick ? 500 : 2000, priority: enginePriority).line("baseline: call → parked dedicated thread (FIFO \(enginePriority.map(String.init) ?? "off"))"))
        print(await wakeBaseline(count: quick ? 500 : 2000, priority: nil).line("baseline: call → parked dedicated thread (normal)"))
    }
    if CommandLine.arguments.contains("--cpu-only") { return try await reportCPUCost(quick: quick) }
    if CommandLine.arguments.contains("--start-latency-only") {
        print(await baseline(count: quick ? 500 : 2000).line("baseline: Task.sleep lateness, 1 ms period"))
        await wakeBaselines()
        let hostPath = try await hostPathLatency(count: quick ? 200 : 2000)
        print(hostPath.returned.line("start latency, host path (start() returns)"))
        print(hostPath.handedOver.line("  start() → its frame handed to the link (the engine's part)"))
        print(try await realTimeStartLatency(count: quick ? 200 : 1000, margin: nil)
            .line("start latency to 1st I2C write, real time, \(defaultMargin) µs margin"))
        return
    }
    if !simavrOnly && !usbOnly {
        print("== engine on the simulated board (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
        print(await baseline(count: quick ? 500 : 2000).line("baseline: Task.sleep lateness, 1 ms period"))
        await wakeBaselines()
        let hostPath = try await hostPathLatency(count: quick ? 200 : 2000)
        print(hostPath.returned.line("start latency, host path (start() returns)"))
        print(hostPath.handedOver.line("  start() → its frame handed to the link (the engine's part)"))
        let start = try await realTimeStartLatency(count: quick ? 200 : 1000, margin: nil)
        print(start.line("start latency to 1st I2C write, real time, \(defaultMargin) µs margin"))
        printGoal("start latency < 100 µs at p99", value: start.percentile(99), limit: 100)
        print(try await realTimeStartLatency(count: quick ? 100 : 300, margin: 300)
            .line("start latency to 1st I2C write, real time, 300 µs margin"))
        report(try await simulatedBoardEventTiming(count: events, timing: .virtual), "event timing |write − stamp|, virtual time", expected: events)
        report(try await simulatedBoardEventTiming(count: events, timing: .realTime), "event timing |write − stamp|, real time", expected: events)
        print("== the same under load: \(ProcessInfo.processInfo.activeProcessorCount) busy-looping processes, one per core")
        let load = try CPULoad()
        print(await baseline(count: quick ? 500 : 2000).line("baseline under load: Task.sleep lateness, 1 ms period"))
        report(try await simulatedBoardEventTiming(count: events, timing: .realTime), "event timing |write − stamp|, real time, loaded", expected: events)
        report(
            try await simulatedBoardEventTiming(count: events, timing: .realTime, realTimePriority: false),
            "same, service thread at normal priority", expected: events)
        print(try await realTimeStartLatency(count: quick ? 100 : 300, margin: nil)
            .line("start latency to 1st I2C write, real time, loaded"))
        load.stop()
    }
    if !usbOnly {
        print("== engine on the firmware ELF under simavr (\(events) events, virtual time)")
        if let root = SimavrBridgeDevice.packageRoot(), SimavrBridgeDevice.locate(packageRoot: root) != nil {
            reportSimavr(try await simavrEventTiming(count: events, packageRoot: root), expected: events)
        } else {
            print("   skipped: the firmware ELF or sim-harness is not built (\(SimavrBridgeDevice.buildHint))")
        }
    }
    if !simavrOnly && !usbOnly {
        try await reportCPUCost(quick: quick)
        try await discovery()
        try farm()
    }
    if !simavrOnly && !usbOnly { try await ft232h() }
    if !simavrOnly {
        print("== register reads through the engine's bus while it streams, over emulated USB (hapbridge emulate bridge --firmware core)")
        try ReadsWhileStreaming.run(events: 10_000)
        print("== engine over emulated USB to the firmware ELF in real time (\(events) events; hapbridge emulate bridge --firmware elf)")
        _ = try EmulatedUSB.run(
            events: events, starts: quick ? 100 : 500, baseline: quick ? 500 : 2000, packageRoot: SimavrBridgeDevice.packageRoot() ?? ".")
    }
}

do { try await run() } catch {
    FileHandle.standardError.write(Data("EngineBenchmarks: \(error)\n".utf8))
    exit(1)
}
