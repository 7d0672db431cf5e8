import Foundation
import Testing
import TestSupport

@testable import HapbridgeCLI

/// The hostile-input test for every subcommand that `CLIFuzzTests` (documents,
/// profiles, options) does not reach: `list`, `info`, `--device`, `emulate bridge` and
/// `emulate control` with their options, `calibrate` and `play` over a hostile
/// calibration store, and runs that are signalled or unplugged in the middle. Each
/// run is the built executable in a directory of its own, and must:
///
/// - end within a bound of wall time, CPU time and address space (set by the shell);
/// - exit with a status the README documents for that command, and die by no signal
///   but the one the test sent it;
/// - put no raw control bytes on standard error;
/// - change no file in its directory (the calibration store included) but the
///   outputs it was told to write.
@Suite struct CLIHostileRunTests {
    typealias Generator = SeededGenerator

    /// Values for `--device`: well-formed addresses of boards that are and are not
    /// there, malformed ones, and text that must not reach a terminal raw.
    static let devices = [
        "sim", "usb", "usb:0001", "usb:0002", "usb:NOPE", "usb:1-1", "usb:1-2", "usb:serial=1-1", "usb:1-99", "usb:1-", "ftdi", "ftdi:X",
        "", "sim:2", "usb:a/b", "usb:" + String(repeating: "x", count: 300), "\u{1B}[31m", "usb:\u{202E}1", "bluetooth",
    ]

    /// What is at the calibration store's file for the simulated board (or the whole
    /// store) before a run: damaged, dangerous or not a file at all.
    enum Store: CaseIterable {
        case absent, garbage, wrongKey, devZero, hugeSparse, fifo, directory, danglingLink, storeIsAFile, configIsAFile
    }

    enum Stop { case none, signal(Int32, afterSeconds: Double), unplug(String, afterSeconds: Double) }

    struct Case {
        var arguments: [String]
        /// Files (relative to the case's directory) the run may create or change.
        var outputs: Set<String> = []
        var allowed: Set<Int32>
        var stop: Stop = .none
        var store: Store = .absent
        /// The emulation and the programs under it take more address space (umockdev, GLib, threads).
        var emulated = false
    }

    static let executable = Hapbridge.executable
    static let serial = "SIMULATED"
    static let actuator = "pmd-c10-100"
    static let storeFile = "config/hapbridge/calibration/\(serial)@\(actuator).json"

    static func cases(count: Int, seed: UInt64) -> [Case] {
        var g = Generator(seed: seed)
        var cases: [Case] = []
        let short = ["impact.heavy", "ios.notification.success", "watchos.retry"]
        for _ in 0..<count {
            switch g.below(10) {
            case 0, 1:  // list and info, on whatever --device says
                var arguments = g.chance(30) ? ["list"] : ["info"]
                if arguments == ["info"], g.chance(80) { arguments += ["--device", g.pick(devices)] }
                if g.chance(40) { arguments.append("--json") }
                if g.chance(10) { arguments.append(g.pick(["--verbose", "--bogus", "-x"])) }
                cases.append(Case(arguments: arguments, allowed: [0, 1, 2]))
            case 2, 3:  // calibrate and play over a hostile calibration store
                let store = g.pick(Store.allCases)
                let arguments = g.chance(50)
                    ? ["calibrate", "--actuator", actuator, "--device", "sim"] + (g.chance(20) ? ["--no-save"] : [])
                    : ["play", g.pick(short), "--actuator", actuator, "--device", "sim"]
                let writes = arguments[0] == "calibrate" && !arguments.contains("--no-save")
                // A link at the store's file is written through: its target is the store's file.
                let outputs: Set<String> = writes ? Set([storeFile] + (store == .danglingLink ? ["nowhere"] : store == .hugeSparse ? ["huge"] : [])) : []
                cases.append(Case(arguments: arguments, outputs: outputs, allowed: [0, 1, 3], store: store))
            case 4:  // a driving command on the simulated board in real time, signalled partway
                let signal = g.pick([SIGINT, SIGTERM, SIGHUP])
                let arguments = g.chance(70)
                    ? ["play", g.pick(short + ["Examples/SOS.ahap"]), "--device", "sim", "--realtime", "--record", "record.json", "--plot", "plot.svg"]
                    : [g.pick(["diagnose", "calibrate", "rom"])] + (g.chance(50) ? ["--actuator", actuator] : ["--actuator", "pmd-307-103"])
                        + ["--device", "sim", "--no-save"]
                let fixed = arguments[0] == "rom" ? ["rom", "1"] + arguments.dropFirst().filter { $0 != "--no-save" }
                    : arguments.filter { $0 != "--no-save" || arguments[0] == "calibrate" }
                cases.append(
                    Case(
                        arguments: fixed.map { $0 == "Examples/SOS.ahap" ? Hapbridge.path($0) : $0 }, outputs: ["record.json", "plot.svg"],
                        // 4: a play on the wall clock may run late on a loaded machine (README's rule).
                        allowed: [0, 1, 3, 4, 128 + signal], stop: .signal(signal, afterSeconds: Double(g.below(800)) / 1000)))
            case 5, 6:  // emulate bridge with options, a hapbridge command on its boards, sometimes unplugged or signalled
                var options: [String] = []
                if g.chance(20) { options += ["--firmware", g.pick(["core", "noise", "elf-nope", ""])] }
                if g.chance(15) { options += ["--protocol", g.pick(["1.0", "1.1", "2.0", "\u{1B}[2J"])] }
                if g.chance(20) { options += ["--boards", g.pick(["1", "2", "0", "127", "-1", "x"])] }
                if g.chance(25) { options += ["--serial", g.pick(["0001", "1-2", "BENCH", "UNSET", "", "a b", "\u{1B}[31m", String(repeating: "s", count: 40)])] }
                if g.chance(10) { options.append("--deny-access") }
                if g.chance(10) { options += ["--actuator", g.pick(["nope", actuator, "/dev/zero", "\u{1B}[31m"])] }
                let logged = g.chance(25)
                if logged { options += ["--log", g.pick(["emulation.jsonl", "missing/emulation.jsonl", "/dev/null", "."])] }
                let inner = g.pick([["list"], ["info", "--device", g.pick(devices)], ["play", g.pick(short), "--device", "usb", "--actuator", actuator],
                                    ["diagnose", "--device", "usb", "--actuator", actuator]])
                var stop: Stop = .none
                // 4: a play on a board in real time may run late on a loaded machine (README's rule).
                var allowed: Set<Int32> = [0, 1, 2, 3, 4, 125, 126, 127]
                switch g.below(4) {
                case 0:
                    stop = .unplug(g.pick(["unplug", "detach"]), afterSeconds: Double(g.below(600)) / 1000)
                case 1:
                    let signal = g.pick([SIGINT, SIGTERM])
                    stop = .signal(signal, afterSeconds: Double(g.below(800)) / 1000)
                    allowed.insert(128 + signal)
                default: break
                }
                let command = g.chance(5) ? [] : g.chance(5) ? ["--", "/nonexistent/program"] : ["--", executable] + inner
                cases.append(
                    Case(arguments: ["emulate", "bridge"] + options + command, outputs: logged ? ["emulation.jsonl"] : [], allowed: allowed, stop: stop, emulated: true))
            case 7:  // emulate control without an emulation, with hostile words
                var arguments = ["emulate", "control"]
                if g.chance(50) { arguments += ["--socket", g.pick(["nope.sock", "/dev/null", ".", String(repeating: "p", count: 200)])] }
                arguments += g.pick([[], ["list"], ["unplug", "\u{1B}[31m"], ["--help"], ["add", "--serial", "x"], [String(repeating: "z", count: 5000)]])
                cases.append(Case(arguments: arguments, allowed: [0, 1, 2]))
            default:  // the hardware commands with hostile --device values
                let command = g.pick([["diagnose"], ["calibrate", "--actuator", actuator, "--no-save"], ["rom", "1", "--no-calibrate"], ["play", "impact.heavy"]])
                cases.append(Case(arguments: command + ["--device", g.pick(devices)], allowed: [0, 1, 2, 3]))
            }
        }
        return cases
    }

    /// Lays out what the case's calibration store holds before it runs.
    static func prepare(_ store: Store, in directory: URL) throws {
        let fm = FileManager.default
        let config = directory.appendingPathComponent("config")
        let calibration = config.appendingPathComponent("hapbridge/calibration")
        let file = directory.appendingPathComponent(storeFile).path
        switch store {
        case .configIsAFile:
            _ = fm.createFile(atPath: config.path, contents: Data("not a directory".utf8))
            return
        case .storeIsAFile:
            try fm.createDirectory(at: calibration.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = fm.createFile(atPath: calibration.path, contents: Data())
            return
        default:
            try fm.createDirectory(at: calibration, withIntermediateDirectories: true)
        }
        switch store {
        case .absent, .configIsAFile, .storeIsAFile: break
        case .garbage: _ = fm.createFile(atPath: file, contents: Data("{\"format\": \"hapbridge-calibration\", \u{1B}[31m".utf8))
        case .wrongKey:
            _ = fm.createFile(
                atPath: file,
                contents: Data(#"{"format": "hapbridge-calibration", "version": 1, "boardSerial": "OTHER", "actuator": {"id": "x"}}"#.utf8))
        case .devZero: try fm.createSymbolicLink(atPath: file, withDestinationPath: "/dev/zero")
        case .hugeSparse:
            let target = directory.appendingPathComponent("huge").path
            let fd = open(target, O_WRONLY | O_CREAT, 0o644)
            _ = ftruncate(fd, 2 << 30)
            close(fd)
            try fm.createSymbolicLink(atPath: file, withDestinationPath: target)
        case .fifo: _ = mkfifo(file, 0o600)
        case .directory: try fm.createDirectory(atPath: file, withIntermediateDirectories: true)
        case .danglingLink: try fm.createSymbolicLink(atPath: file, withDestinationPath: directory.appendingPathComponent("nowhere").path)
        }
    }

    /// Every entry below `directory` with what identifies its state: type, mode,
    /// size, modification time, inode, and where a link points.
    static func snapshot(_ directory: String) -> [String: String] {
        var out: [String: String] = [:]
        func walk(_ relative: String) {
            let path = relative.isEmpty ? directory : directory + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            var entry = "\(info.st_mode) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
            if info.st_mode & S_IFMT == S_IFLNK, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) { entry += " -> \(target)" }
            if !relative.isEmpty { out[relative] = entry }
            guard info.st_mode & S_IFMT == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names { walk(relative.isEmpty ? name : relative + "/" + name) }
        }
        walk("")
        return out
    }

    struct Outcome {
        var status: Int32?
        var signal: Int32?
        var stderr: [UInt8]
        var seconds: Double
    }

    /// Wall time a run may take: real-time runs play at most a few seconds of pattern,
    /// and an emulation boots its boards first.
    static let wallSeconds = 60.0

    static func run(_ c: Case, in directory: URL) throws -> Outcome {
        let errors = directory.appendingPathComponent(".stderr")
        let kib = c.emulated ? 8 << 20 : Hapbridge.addressSpaceKiB
        var script = "ulimit -t \(Hapbridge.cpuSeconds) && ulimit -v \(kib) || exit 125; "
        var arguments = c.arguments
        if case .unplug(let how, let after) = c.stop, let dash = arguments.firstIndex(of: "--"), dash + 1 < arguments.count {
            // COMMAND in the background, the unplug partway, then COMMAND's status.
            let inner = Array(arguments[(dash + 1)...])
            arguments = Array(arguments[...dash]) + [
                "/bin/sh", "-c", "\"$@\" & p=$!; sleep \(after); \"\(executable)\" emulate control \(how) >/dev/null 2>&1; wait $p", "sh",
            ] + inner
        }
        script += "exec \"$0\" \"$@\" </dev/null >/dev/null 2>\"\(errors.path)\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, executable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment.removeValue(forKey: "HAPBRIDGE_EMULATE_CONTROL")
        process.environment = environment
        process.currentDirectoryURL = directory
        let start = Date()
        try process.run()
        var signalled = false
        while process.isRunning {
            let elapsed = Date().timeIntervalSince(start)
            if case .signal(let signal, let after) = c.stop, !signalled, elapsed >= after {
                kill(process.processIdentifier, signal)
                signalled = true
            }
            if elapsed > wallSeconds {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return Outcome(status: nil, signal: SIGKILL, stderr: [], seconds: elapsed)
            }
            usleep(5_000)
        }
        let byTheSignal = process.terminationReason == .uncaughtSignal
        return Outcome(
            status: byTheSignal ? nil : process.terminationStatus, signal: byTheSignal ? process.terminationStatus : nil,
            stderr: Array((try? Data(contentsOf: errors)) ?? Data()), seconds: Date().timeIntervalSince(start))
    }

    static func problems(_ c: Case, _ outcome: Outcome, before: [String: String], after: [String: String]) -> [String] {
        var found: [String] = []
        if outcome.status == nil, outcome.signal == SIGKILL, outcome.seconds > wallSeconds { return ["did not end within \(Int(wallSeconds)) s"] }
        if let signal = outcome.signal {
            // Only the signal the test sent may end it (before its handlers were installed).
            if case .signal(let sent, _) = c.stop, sent == signal {} else { found.append("ended by signal \(signal)") }
        }
        if let status = outcome.status, !c.allowed.contains(status) { found.append("exit status \(status)") }
        let run = HapbridgeRun(status: outcome.status ?? -1, signal: outcome.signal, stdout: [], stderr: outcome.stderr)
        if !run.controlBytesOnStderr.isEmpty { found.append("raw control bytes on stderr: \(run.controlBytesOnStderr)") }
        let ignored: Set<String> = [".stderr"]
        for name in Set(before.keys).union(after.keys) where !ignored.contains(name) && before[name] != after[name] {
            let allowed = c.outputs.contains { name == $0 || $0.hasPrefix(name + "/") }
            if !allowed { found.append("changed \(TerminalText.echo(name)): \(before[name] ?? "absent") → \(after[name] ?? "absent")") }
        }
        return found
    }

    @Test("Every subcommand, hostile devices, stores, emulation options, signals and unplugs: documented statuses, no stray signal, bounded, clean stderr, no stray file changes")
    func hostileRuns() throws {
        let seed: UInt64 = 0x4842_5255_4E53_3137  // "HBRUNS17"
        let root = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let cases = Self.cases(count: 320, seed: seed)
        let failures = RunLog()
        let seen = RunLog()
        let statuses = RunLog()
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            let c = cases[index]
            let directory = root.appendingPathComponent("case\(index)")
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Self.prepare(c.store, in: directory)
                let before = Self.snapshot(directory.path)
                let outcome = try Self.run(c, in: directory)
                let after = Self.snapshot(directory.path)
                seen.add("\(c.arguments[0]) \(c.arguments.count > 1 && c.arguments[0] == "emulate" ? c.arguments[1] : "")")
                statuses.add("\(c.arguments[0]) \(c.arguments.count > 1 && c.arguments[0] == "emulate" ? c.arguments[1] : "") \(outcome.signal.map { "signal \($0)" } ?? "status \(outcome.status ?? -1)")")
                let problems = Self.problems(c, outcome, before: before, after: after)
                if !problems.isEmpty {
                    failures.add(
                        "case \(index) \(c.arguments.map { TerminalText.echo($0, limit: 50) }) store \(c.store) stop \(c.stop): \(problems.joined(separator: "; ")); "
                            + "stderr: \(TerminalText.echo(String(decoding: outcome.stderr, as: UTF8.self), limit: 400))")
                }
            } catch {
                failures.add("case \(index): could not run: \(error)")
            }
            try? FileManager.default.removeItem(at: directory)
        }
        let found = failures.entries
        let counts = Dictionary(statuses.entries.map { ($0, 1) }, uniquingKeysWith: +).sorted { $0.key < $1.key }
        print("CLIHostileRunTests: \(cases.count) runs, seed \(seed): " + counts.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        #expect(found.isEmpty, "seed \(seed): \(found.count) of \(cases.count) runs failed:\n\(found.prefix(20).joined(separator: "\n"))")
        // The runs reach every subcommand this test is for.
        let commands = Set(seen.entries.map { $0.split(separator: " ").map(String.init).joined(separator: " ") })
        for command in ["list", "info", "calibrate", "play", "diagnose", "rom", "emulate bridge", "emulate control"] {
            #expect(commands.contains(command), "no run of \(command): \(commands.sorted())")
        }
    }
}
