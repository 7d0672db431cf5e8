import BridgeLink
import BridgeProtocol
import DeviceInterface
import Devices
import Foundation
import HapticCompilation
import HapticEngine
import Haptics
import RealTime
import USBEmulation

/// The client side of `EmulatedUSB`: runs as COMMAND inside the emulation, with the
/// emulation's log path. Every figure is host µs on CLOCK_MONOTONIC (the log's
/// `host_us`/`submit_us`, `RealTimeExecutor.monotonicMicroseconds` here) or board µs
/// (the firmware's clock: stamps and I2C STARTs).
struct EmulatedUSBClient {
    var events: Int
    var starts: Int
    var baselineCount: Int
    var logPath: String

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// `--emulated-usb-client --events N --starts N --baseline N --log PATH`.
    init(arguments: [String]) throws(UsageError) {
        func value(_ name: String) throws(UsageError) -> String {
            guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { throw UsageError(description: "\(name) is missing") }
            return arguments[i + 1]
        }
        func count(_ name: String) throws(UsageError) -> Int {
            let text = try value(name)
            guard let n = Int(text), n > 0 else { throw UsageError(description: "\(name) takes a positive count, not \(text)") }
            return n
        }
        events = try count("--events")
        starts = try count("--starts")
        baselineCount = try count("--baseline")
        logPath = try value("--log")
    }

    func run() async throws {
        print(await baseline(count: baselineCount).line("baseline in the emulation: Task.sleep lateness, 1 ms"))
        let opened = try DeviceCatalog().open(.usb(.any), simulated: SimulatedBoardSetup(actuator: nil))
        print("   \(opened.summary)")
        var options = HapticEngine.Options(driving: .automatic)
        options.keepsSentCommandLog = true
        let engine = HapticEngine(link: BridgeLink(transport: RefusalTally(SendTimes(opened.takeTransport()))), actuator: try actuatorProfile(), options: options)
        try await engine.start()
        print("   engine service thread: \(engine.serviceThreadScheduling)")

        let calls = try await startCalls(engine)
        // The board reports its underruns in QUEUE_STATUS, which an engine with nothing
        // sounding asks for only every quarter keep-alive (`queueStatusDue`): the last
        // starts' underruns come in that long after them. Wait for that report, so the
        // starts' count holds them and the events' count does not.
        try await Task.sleep(for: .microseconds(Int64(BridgeLink.OpenOptions().keepAliveMilliseconds) * 1000 / 4 + 50_000))
        let afterStarts = await engine.statistics
        let refusedInStarts = await refusals(engine)
        let begin = ((await engine.currentTime + 0.05) * 1e6).rounded()
        let player = try await engine.makePlayer(with: alternatingSteps(count: events))
        try await player.start(atTime: begin / 1e6)
        try await Task.sleep(for: .seconds(Double(events) * stepSeconds + 0.3))
        let statistics = await engine.statistics.since(afterStarts)
        let refused = await refusals(engine)
        let stillRunning = await engine.isRunning
        let rtp = await engine.sentCommands.compactMap { c -> (time: Double, amplitude: UInt8)? in
            guard case .rtp(let a) = c.command else { return nil }
            return (Double(c.time), UInt8(bitPattern: a))
        }
        await engine.stop()

        let log = try EmulationLog.entries(atPath: logPath)
        reportStartLatency(calls: calls, log: log, sends: await engine.withDevice { (($0 as? RefusalTally)?.inner as? SendTimes)?.sends ?? [] })

        // A stamp is when the chip takes the value, the STOP of its write (PROTOCOL.md,
        // "Stamped commands"); the simavr log times START and STOP to the cycle. The
        // firmware starts the write ~82 µs early: STARTs are matched up to 400 µs
        // early for the old figure, STOPs up to 2 µs.
        let rtpWrites = log.compactMap { e -> (start: Double, stop: Double, value: UInt8)? in
            guard e.event == "i2c", e.op == "w", let b = e.decodedBytes, b.count >= 2, b[0] == rtpInputRegister, let t = e.board_us else { return nil }
            return (t, e.board_stop_us ?? t, b[1])
        }
        let writes = rtpWrites.map { (time: $0.stop, value: $0.value) }
        let starts = rtpWrites.map { (time: $0.start, value: $0.value) }
        let starting = timingErrors(stamps: rtp.filter { $0.time < begin }, writes: writes, earlyTolerance: 2)
        print(Stats(samples: starting.errors).line("the starts' own commands: |RTP latch − stamp|"))
        print(
            "   during the starts: \(afterStarts.commandsSent) commands sent (the chip set-up included), \(afterStarts.lateCommands) late, "
                + "\(afterStarts.boardUnderruns) board underruns, \(afterStarts.rejectedFrames) rejected (\(refusedInStarts)); "
                + "\(starting.unmatched) stamps without a chip write")
        let (errors, unmatched) = timingErrors(stamps: rtp.filter { $0.time >= begin }, writes: writes, earlyTolerance: 2)
        print(Stats(samples: errors).line("event timing |RTP latch − stamp|, ELF over emulated USB"))
        printGoal("event timing ≤ 10 µs at p99.9", value: Stats(samples: errors).percentile(99.9), limit: 10)
        let old = timingErrors(stamps: rtp.filter { $0.time >= begin }, writes: starts, earlyTolerance: 400)
        print(Stats(samples: old.errors).line("  event timing |RTP START − stamp| (the old figure; the write starts ~82 µs early)"))
        // The event phase alone: what the engine counted after the starts.
        let clock = statistics.clock.map { String(format: "±%.0f µs", $0.errorMicroseconds) } ?? "none"
        print(
            "   \(statistics.commandsSent) commands sent, \(statistics.lateCommands) late, \(statistics.boardUnderruns) board underruns, "
                + "\(statistics.rejectedFrames) rejected (\(refused)); \(unmatched) stamps without a chip write; queue high water "
                + "\(statistics.queueHighWater); clock sync \(clock)")
        if !stillRunning { print("   WARNING: the engine stopped during the run") }
        reportSimulationLag(log)
        if errors.count < events { print("   note: \(errors.count) RTP commands for \(events) events (a steady amplitude is sent once)") }
    }

    /// The board's NAKs by reason since the last look.
    func refusals(_ engine: HapticEngine) async -> String {
        await engine.withDevice { ($0 as? RefusalTally)?.take() ?? "not counted" }
    }

    /// `player.start()` (immediate) `starts` times, 12 ms apart (a 4 ms event each, so
    /// each start finds the chip at rest): the host time of each call.
    func startCalls(_ engine: HapticEngine) async throws -> [UInt64] {
        let player = try await engine.makePlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 0.004, intensity: 1, sharpness: 0.5)]))
        var calls: [UInt64] = []
        for _ in 0..<starts {
            let t0 = RealTimeExecutor.monotonicMicroseconds()
            try await player.start()
            calls.append(t0)
            try await Task.sleep(for: .milliseconds(12))
        }
        return calls
    }

    /// For each call, within the time to the next: the first bulk OUT transfer holding a
    /// CMD_RTP that drives (its frame) — when it reached the device model and when the
    /// firmware had taken it — and the first driving RTP_INPUT write's latch (its STOP)
    /// at the chip.
    /// A call with none counts as infinitely late: no sample is dropped.
    func reportStartLatency(calls: [UInt64], log: [EmulationLog.Entry], sends: [(hostMicroseconds: UInt64, bytes: [UInt8])]) {
        func drives(_ bytes: [UInt8]) -> Bool { ((try? HostFrame.decodeAll(bytes)) ?? []).contains { ($0.rtpAmplitude ?? 0) != 0 } }
        let frames = log.filter { e in e.event == "bulk_out" && drives(e.decodedBytes ?? []) }
        let handed = sends.filter { drives($0.bytes) }
        let writes = log.filter { e in
            guard e.event == "i2c", e.op == "w", let b = e.decodedBytes else { return false }
            return b.count >= 2 && b[0] == rtpInputRegister && b[1] != 0
        }
        var toTransport: [Double] = []
        var toDevice: [Double] = []
        var toFirmware: [Double] = []
        var toChip: [Double] = []
        var missing = 0
        for (i, t0) in calls.enumerated() {
            let end = i + 1 < calls.count ? calls[i + 1] : UInt64.max
            let frame = frames.first { ($0.submit_us ?? 0) >= t0 && ($0.submit_us ?? 0) < end }
            toTransport.append(handed.first { $0.hostMicroseconds >= t0 && $0.hostMicroseconds < end }.map { Double($0.hostMicroseconds) - Double(t0) } ?? .infinity)
            let write = writes.first { $0.host_us >= t0 && $0.host_us < end }
            if frame == nil || write == nil { missing += 1 }
            toDevice.append(frame?.submit_us.map { Double($0) - Double(t0) } ?? .infinity)
            toFirmware.append(frame.map { Double($0.host_us) - Double(t0) } ?? .infinity)
            // The chip takes the value at the write's STOP: its START on the host's clock
            // plus the write's own length on the board's.
            let length = write.flatMap { w in w.board_stop_us.flatMap { stop in w.board_us.map { stop - $0 } } } ?? 0
            toChip.append(write.map { Double($0.host_us) + length - Double(t0) } ?? .infinity)
        }
        // The engine's part ends where the frame is handed to libusb; the rest is the
        // link's delivery (here umockdev's serialised ioctls and the emulation).
        print(Stats(samples: toTransport).line("start() → its frame handed to libusb (the engine's part)"))
        print(Stats(samples: toDevice).line("start() → its bulk OUT URB at the device model"))
        print(Stats(samples: toFirmware).line("start() → the firmware took it (harness bulk OUT)"))
        print(Stats(samples: toChip).line("start() → first RTP latch (host clock)"))
        if missing > 0 { print("   WARNING: \(missing) of \(calls.count) starts without a frame or a write in the log (counted as ∞)") }
    }
}

extension EmulatedUSBClient {
    /// A full-speed USB frame: lag beyond it changes what the host-time figures mean.
    static let lagNoticeMicroseconds = 1000.0

    /// How far the simulated ELF fell behind the wall clock: the harness paces simulated
    /// time to the host's clock and logs each I2C START at its due host time plus the
    /// simulation's lag, so host − board time grows by exactly the lag. A board that
    /// lags runs every stamp late in host time: the figures above hold only while it
    /// keeps up (it needs about half a core).
    func reportSimulationLag(_ log: [EmulationLog.Entry]) {
        let offsets = log.compactMap { e -> Double? in
            guard e.event == "i2c", let b = e.board_us else { return nil }
            return Double(e.host_us) - b
        }
        guard let floor = offsets.min() else { return }
        let lag = offsets.map { $0 - floor }
        print(Stats(samples: lag).line("   simulation behind the wall clock, at each I2C START"))
        if let worst = lag.max(), worst > Self.lagNoticeMicroseconds {
            print(
                "   note: the simulated ELF fell up to \(String(format: "%.0f", worst)) µs behind the wall clock (the machine was busy): the start figures, "
                    + "underruns and refused frames include that lag; the event timing (board time against board time) does not")
        }
    }
}

extension StreamStatistics {
    /// The counts since `earlier` (same engine run); the clock estimate is the newest.
    func since(_ earlier: StreamStatistics) -> StreamStatistics {
        var s = self
        s.commandsSent -= earlier.commandsSent
        s.lateCommands -= earlier.lateCommands
        s.boardUnderruns -= earlier.boardUnderruns
        s.rejectedFrames -= earlier.rejectedFrames
        s.replacements -= earlier.replacements
        return s
    }
}
