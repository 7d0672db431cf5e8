import Foundation
import HostedBoard

/// Host timing on the FT232H: the firmware core hosted in this process,
/// its timer on a dedicated thread, each stamped write handed to libftdi by the host.
/// This binary runs again as the COMMAND of `hapbridge emulate ft232h` (client mode),
/// where libftdi reaches the emulated FT232H through umockdev, exactly as it reaches a
/// plugged-in one. Beside it, in the same run: the machine's own baseline (a
/// cyclictest-like loop of clock_nanosleep wake-ups at the same period and priority)
/// and the same events from Python through pyftdi, the alternative a user would
/// otherwise pick.
///
/// Figures through the emulation include its USB OUT transfer (the "hand-over" line: the
/// timer thread's write call; the answer is the reader thread's), which a real FT232H's
/// 125 µs microframes make shorter; actual − stamp is when a write leaves the host,
/// which the host alone decides.
enum FT232HTiming {
    static let clientFlag = "--ft232h-client"
    /// The events' period: each a new RTP amplitude, the envelope updated at 1 kHz. 2 ms,
    /// as the engine's other event benchmarks (`stepSeconds`); `--long` writes every
    /// 1 ms (a few events alias onto their neighbours there).
    static let periodMicroseconds: Int64 = 2000
    static let longPeriodMicroseconds: Int64 = 1000
    /// The hosted timer thread's priority and spin (HostedBoard.Configuration's defaults).
    static let priority: Int32 = 30
    static let spinMicroseconds = HostedBoard.Configuration.defaultSpinMicroseconds
    static let pyftdiVersion = "0.57.2"

    static func run(events: Int, long: Bool, packageRoot: String) async throws {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let hapbridge = me.deletingLastPathComponent().appendingPathComponent("hapbridge").path
        guard FileManager.default.isExecutableFile(atPath: hapbridge) else {
            print("   skipped: no hapbridge beside this binary (swift build --product hapbridge)")
            return
        }
        if CommandLine.arguments.contains("--long-only") {
            // The ten minutes, after the machine's floor for them.
            floorForTheLongRun()
            fflush(nil)
            let status = try runQuietly(hapbridge, ["emulate", "ft232h", "--", me.path, clientFlag, "--long-only"])
            if status != 0 { print("   WARNING: the run under the emulation ended with status \(status)") }
            return
        }
        let fifo = cyclicBaseline(count: events, periodMicroseconds: UInt64(periodMicroseconds), priority: priority)
        print(fifo.errors.line("baseline: clock_nanosleep wake-ups, \(periodMicroseconds / 1000) ms, \(fifo.scheduling.shortName)"))
        let normal = cyclicBaseline(count: events, periodMicroseconds: UInt64(periodMicroseconds), priority: nil)
        print(normal.errors.line("baseline: clock_nanosleep wake-ups, \(periodMicroseconds / 1000) ms, normal class"))
        var arguments = ["emulate", "ft232h", "--", me.path, clientFlag, "--events", String(events),
                         "--baseline-fifo-p99", String(fifo.errors.percentile(99)), "--baseline-normal-p99", String(normal.errors.percentile(99))]
        if long {
            floorForTheLongRun()
            arguments.append("--long")
        }
        fflush(nil)  // our lines first: the client writes to the same descriptor
        let status = try runQuietly(hapbridge, arguments)
        if status != 0 { print("   WARNING: the run under the emulation ended with status \(status)") }
        try pyftdiSideBySide(hapbridge: hapbridge, packageRoot: packageRoot, events: min(events, 500))
    }

    /// Client mode, under the emulation: three runs of the same events (SCHED_FIFO with
    /// the spin, the normal class with the spin, SCHED_FIFO without it), then with
    /// `--long` ten minutes at 1 kHz.
    static func client(arguments: [String]) async throws {
        func value(_ flag: String) -> String? { arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil } }
        let events = value("--events").flatMap(Int.init) ?? 10_000
        let fifoBaseline = value("--baseline-fifo-p99").flatMap(Double.init)
        let normalBaseline = value("--baseline-normal-p99").flatMap(Double.init)
        let spin = spinMicroseconds
        if arguments.contains("--long-only") { return try await long(spin: spin) }
        let withFIFO = try await hostedEvents(count: events, periodMicroseconds: periodMicroseconds, priority: priority, spinMicroseconds: spin)
        report(withFIFO, "hosted core, SCHED_FIFO \(priority), \(spin) µs spin", events: events)
        if let fifoBaseline { printGoal("p99 ≤ 1.2 × the SCHED_FIFO baseline's p99 (\(String(format: "%.2f", 1.2 * fifoBaseline)) µs)", value: withFIFO.late.percentile(99), limit: 1.2 * fifoBaseline) }
        let normal = try await hostedEvents(count: events, periodMicroseconds: periodMicroseconds, priority: nil, spinMicroseconds: spin)
        report(normal, "hosted core, normal class, \(spin) µs spin", events: events)
        if let normalBaseline { printGoal("p99 ≤ 1.2 × the normal-class baseline's p99 (\(String(format: "%.2f", 1.2 * normalBaseline)) µs)", value: normal.late.percentile(99), limit: 1.2 * normalBaseline) }
        let noSpin = try await hostedEvents(count: events, periodMicroseconds: periodMicroseconds, priority: priority, spinMicroseconds: 0)
        report(noSpin, "hosted core, SCHED_FIFO \(priority), no spin", events: events)
        print(String(format: "   the spin's CPU cost: %.1f %% of a core (timer thread %.1f %% with it, %.1f %% without)",
                     100 * (withFIFO.timerCPUPerSecond - noSpin.timerCPUPerSecond), 100 * withFIFO.timerCPUPerSecond, 100 * noSpin.timerCPUPerSecond))
        if arguments.contains("--long") { try await long(spin: spin) }
    }

    /// How long the floor for the ten minutes is measured (a fifth of them: the count
    /// over ten minutes is this one's times five, said as such).
    static let floorSeconds = 120

    /// The machine's floor for `--long`: the hosted timer's schedule (1 ms, SCHED_FIFO
    /// 30, 150 µs spin) without the USB, for `floorSeconds`: how many ticks this
    /// machine alone makes more than 100 µs late.
    static func floorForTheLongRun() {
        let ticks = floorSeconds * 1_000_000 / Int(longPeriodMicroseconds)
        let floor = cyclicBaseline(count: ticks, periodMicroseconds: UInt64(longPeriodMicroseconds), priority: priority, spinMicroseconds: UInt64(spinMicroseconds))
        let late = floor.errors.samples.filter { $0 > 100 }.count
        print(floor.errors.line("floor: sleep then spin \(spinMicroseconds) µs onto each 1 ms tick, \(floor.scheduling.shortName), \(floorSeconds) s"))
        print("   \(late) of \(ticks) ticks more than 100 µs late on this machine alone (×\(600 / floorSeconds) for ten minutes: ~\(late * 600 / floorSeconds))")
    }

    /// Ten minutes writing every 1 ms (in 20 s bursts: `burstSeconds`), SCHED_FIFO.
    static func long(spin: UInt16) async throws {
        let tenMinutes = 600_000_000 / Int(longPeriodMicroseconds)
        let long = try await hostedEvents(count: tenMinutes, periodMicroseconds: longPeriodMicroseconds, priority: priority, spinMicroseconds: spin)
        report(long, "--long: 10 minutes at 1 kHz, SCHED_FIFO \(priority)", events: tenMinutes)
        print("   goal, 0 underruns over 10 minutes: \(long.underruns == 0 && long.lateCommands == 0 ? "met" : "NOT met")")
    }

    static func report(_ f: HostedFigures, _ name: String, events: Int) {
        print(f.late.line("\(name): actual − stamp"))
        print(f.handOver.line("   its hand-over (the timer thread's write call)"))
        print(String(format: "   %d stamped RTP writes of %d events; engine: %d commands sent, %d late, %d underruns; timer thread %@, CPU %.1f %% of a core; at most %d answers outstanding",
                     f.late.samples.count, events, f.commandsSent, f.lateCommands, f.underruns, f.scheduling, 100 * f.timerCPUPerSecond, f.deepestBacklog))
        if !f.lateCauses.isEmpty {
            print("   writes more than 100 µs late, by what held them: " + f.lateCauses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
    }

    /// The same events from Python: pyftdi's I2cController under the emulation,
    /// sleeping until each stamp (what a script does) and sleeping then spinning.
    static func pyftdiSideBySide(hapbridge: String, packageRoot: String, events: Int) throws {
        let script = packageRoot + "/Benchmarks/EngineBenchmarks/pyftdi_events.py"
        guard let path = pyftdiPath() else {
            print("   pyftdi: skipped (not importable, and pip could not install pyftdi \(pyftdiVersion); apt-get install python3-usb python3-serial python3-pip)")
            return
        }
        for mode in ["sleep", "spin"] {
            let out = try capture(hapbridge, ["emulate", "ft232h", "--", "env", "PYTHONPATH=\(path)", "/usr/bin/python3", script, String(events), String(periodMicroseconds), mode])
            let figures = Dictionary(out.split(separator: "\n").compactMap { line -> (String, [String: Double])? in
                let fields = line.split(separator: " ")
                guard let name = fields.first, name == "error" || name == "call" else { return nil }
                let pairs = fields.dropFirst().compactMap { f -> (String, Double)? in
                    let kv = f.split(separator: "=")
                    guard kv.count == 2, let v = Double(kv[1]) else { return nil }
                    return (String(kv[0]), v)
                }
                return (String(name), Dictionary(pairs, uniquingKeysWith: { a, _ in a }))
            }, uniquingKeysWith: { a, _ in a })
            guard let error = figures["error"], let call = figures["call"] else {
                print("   pyftdi (\(mode)): no figures; its output was:\n\(out)")
                continue
            }
            func row(_ name: String, _ f: [String: Double]) -> String {
                String(format: "%@ n=%6d  p50 %9.2f  p99 %9.2f  p99.9 %9.2f  max %9.2f µs", name.padding(toLength: 56, withPad: " ", startingAt: 0) as NSString,
                       Int(f["n"] ?? 0), f["p50"] ?? .nan, f["p99"] ?? .nan, f["p999"] ?? .nan, f["max"] ?? .nan)
            }
            print(row("pyftdi \(pyftdiVersion), \(mode == "sleep" ? "time.sleep to each stamp" : "sleep then spin"): actual − stamp", error))
            print(row("   its write_to() call", call))
        }
    }

    /// A PYTHONPATH under which `import pyftdi` works ("" when it already does), the
    /// copy FTDITests installs from PyPI (one per version, kept between runs).
    static func pyftdiPath() -> String? {
        let check = ["/usr/bin/python3", "-c", "import pyftdi, usb, serial"]
        if (try? capture("/usr/bin/env", check, status: true)) == "0" { return "" }
        let target = NSTemporaryDirectory() + "/hapbridge-pyftdi-\(pyftdiVersion)"
        if (try? capture("/usr/bin/env", ["PYTHONPATH=\(target)"] + check, status: true)) == "0" { return target }
        _ = try? capture("/usr/bin/python3", ["-m", "pip", "install", "--quiet", "--no-deps", "--target", target, "pyftdi==\(pyftdiVersion)"])
        if (try? capture("/usr/bin/env", ["PYTHONPATH=\(target)"] + check, status: true)) == "0" { return target }
        return nil
    }

    /// Runs a command with our standard output; its standard error (the emulation's
    /// summary line, and what a client that failed said) is shown only when it fails.
    static func runQuietly(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            print(String(decoding: text, as: UTF8.self).split(separator: "\n").suffix(10).map { "   stderr: \($0)" }.joined(separator: "\n"))
        }
        return process.terminationStatus
    }

    /// Runs a command to its end: its standard output, or with `status` its exit status.
    static func capture(_ executable: String, _ arguments: [String], status: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return status ? String(process.terminationStatus) : String(decoding: data, as: UTF8.self)
    }
}
