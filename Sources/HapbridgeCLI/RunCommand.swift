import Actuators
import ArgumentParser
import Devices
import Foundation
import HIL
import HostedBoard
import Plot

/// `hapbridge run BENCH TEST…`: scripted hardware-in-the-loop tests (HIL library) with
/// live progress on standard error, a JSON record, JUnit XML and a plot per measuring step.
public struct RunCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run HIL test scripts (YAML) on a bench file's devices: measurements against limits, a JSON record, JUnit XML, OpenMetrics.",
        discussion: """
            BENCH names the devices by address (sim, usb:SERIAL, usb:BUS-PORT), the actuator on each, the fixture \
            and feature tags; each TEST is a suite of tests, each a list of steps (calibrate, diagnose, play, measure, \
            sweep, wait, flash, unplug, replug) with limits on what they measure. Formats: \(ShippedFiles.hilExamples)/*.schema.json, with examples and their README.md beside them. \
            Every device gets a health check first (HELLO: serial and firmware; the chip's ID; VBAT). A test needing a \
            feature the bench lacks is skipped with the reason. A step runs under the tightest of its own `timeout`, \
            its test's and --timeout; `retries` tries a test again after an ERROR, `repeats` after a FAIL, and every \
            attempt is recorded. A device that vanishes mid-test (mid-play too) makes the test an ERROR after a wait \
            of at most --vanish-wait seconds for it to come back; the next test goes on. A play or measure step that \
            played late (any command late, any board underrun) is an ERROR with the counts. Times (timeouts, \
            --timeout, --vanish-wait, --wait) are at most one week. Patterns, images and profiles a file names are \
            found beside it; every pattern is read, every flash image found and every sweep range checked against \
            its device's actuator before anything runs. BENCH or one TEST may be - (standard input). \
            Farm mode: a test's `device` may name a tag the bench gives devices (`tags: [farm]`); the test then runs \
            on every device carrying it. Each device's tests run in order in a task of their own, every device at \
            once, each result keyed by its device (JSON, JUnit, OpenMetrics); a board that vanishes or fails its \
            health check ERRORs its own tests only. With tests on several devices, --json FILE also gets one record \
            per device beside it, the device's name before the extension (run.json → run.board-1.json), whose counts \
            sum to the run's. \
            Each board the bench names is locked for the run, for every user of the host: a lock file per board \
            (a bridge board by its USB port and serial, a hosted adapter by its scheme and serial, the simulated board as sim) in \
            --lock-dir, else $HAPBRIDGE_LOCK_DIR, else /run/lock/hapbridge (the Debian package makes it for the \
            hapbridge group), held with flock(2) while the run lives. A board another run holds is refused at once \
            (exit 10) naming its holder (user, host, pid, command, since when); --wait [SECONDS] queues for it \
            instead (alone: up to one week). SIGINT, SIGTERM or SIGHUP ends the step under way at once (its \
            actuator stopped; a flash runs to its end), ends its test as an ERROR "interrupted by SIGINT", runs \
            nothing more, writes the summary, --json, --junit, --metrics and --plots of what ran and releases the locks; a \
            second signal exits at once (the kernel releases the locks); during --wait it ends the wait. \
            Exit status: \(Status.summary)
            """)

    /// `run`'s statuses: the CLI's (`ExitStatus`, where each is documented).
    enum Status {
        static let allPassed = ExitStatus.success
        /// A bench file or script cannot be used (file:line: key: rule): nothing ran.
        static let badScript = ExitStatus.usage
        static let failed = ExitStatus.runFailed
        static let error = ExitStatus.runError
        static let boardBusy = ExitStatus.boardLocked

        static let summary = "0 every test passed (MARGINAL and SKIP included), 2 a bench file or script error or a wrong option (nothing ran), 9 a test ERRORed or the run was cut short (health check, --timeout), 10 a board is locked by another run (still, after --wait), 11 a test FAILed and none ERRORed, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (during a run or a --wait), 1 any other failure (an output file or --plots directory, the lock directory)."
    }

    @Argument(help: "The bench file (YAML; - for standard input).")
    public var bench: String

    @Argument(help: "Test scripts (YAML; one may be - for standard input), run in order.")
    public var tests: [String]

    @Option(
        help: ArgumentHelp(
            "Write the run's record as JSON to this file (- for standard output). A run over several devices also writes each device's record beside it, its name before the extension: run.json → run.DEVICE.json.",
            valueName: "file"))
    public var json: String?

    @Option(help: ArgumentHelp("Write JUnit XML to this file (- for standard output), valid against Jenkins' junit-10.xsd.", valueName: "file"))
    public var junit: String?

    @Flag(
        name: .customLong("junit-testcase-file"),
        help: "Also name the script in each JUnit testcase's file attribute, where GitLab reads it; junit-10.xsd has no such attribute, and Jenkins' xUnit plugin skips a file that has it.")
    public var junitTestcaseFile = false

    @Option(
        help: ArgumentHelp(
            "Write every figure as OpenMetrics text to this file (- for standard output): a gauge per figure with its limits and verdict, for GitLab's metrics report and Prometheus.",
            valueName: "file"))
    public var metrics: String?

    @Option(help: ArgumentHelp("Write an SVG plot of each play, measure and sweep step into this directory (JUnit attaches them).", valueName: "DIR"))
    public var plots: String?

    @Option(help: "The whole run's time limit, s.")
    public var timeout: Double = 3600

    @Option(name: .customLong("vanish-wait"), help: "How long a device that vanished mid-test is waited for, s.")
    public var vanishWait: Double = 10

    @Option(name: .customLong("lock-dir"), help: "Where the boards' lock files are (default: $HAPBRIDGE_LOCK_DIR, else /run/lock/hapbridge).")
    public var lockDirectory: String?

    @Option(
        name: .customLong("wait"), defaultAsFlag: TimeLimits.maxSeconds,
        help: ArgumentHelp(
            "Queue for a board another run holds: wait up to SECONDS (alone: one week) for it to come free. Give it after the files, or as --wait=SECONDS.",
            valueName: "seconds"))
    public var wait: Double? = nil

    public init() {}

    public func validate() throws {
        guard timeout > 0, timeout <= TimeLimits.maxSeconds else {
            throw ValidationError("--timeout must be seconds above 0 and \(TimeLimits.maxText), not \(timeout)")
        }
        guard vanishWait >= 0, vanishWait <= TimeLimits.maxSeconds else {
            throw ValidationError("--vanish-wait must be 0 or more seconds, \(TimeLimits.maxText), not \(vanishWait)")
        }
        if let wait, !(wait >= 0 && wait <= TimeLimits.maxSeconds) {
            throw ValidationError("--wait must be 0 or more seconds, \(TimeLimits.maxText), not \(wait)")
        }
        if tests.isEmpty { throw ValidationError("give at least one TEST script after BENCH") }
        if junitTestcaseFile, junit == nil { throw ValidationError("--junit-testcase-file shapes the JUnit XML: give --junit FILE with it") }
        if lockDirectory?.isEmpty == true { throw ValidationError("--lock-dir must name a directory (without it: $HAPBRIDGE_LOCK_DIR, else /run/lock/hapbridge)") }
        if ([bench] + tests).filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input (-) can be read once: give it as BENCH or as one TEST")
        }
        let outputs = [("--json", json), ("--junit", junit), ("--metrics", metrics)].compactMap { o in o.1.map { (o.0, $0) } }
        for (i, a) in outputs.enumerated() {
            for b in outputs[(i + 1)...] where OutputFile.sameDestination(a.1, b.1) {
                throw ValidationError(
                    "\(a.0) and \(b.0) name the same destination (\(a.1 == "-" ? "standard output" : a.1)): the second would overwrite or run into the first; give each its own")
            }
        }
    }

    /// How messages and records name a file given as `path`: "(standard input)" for -.
    static func label(_ path: String) -> String { path == "-" ? InputFile.standardInputName : path }

    static func readText(_ path: String) throws -> String {
        let bytes: [UInt8]
        do { bytes = try InputFile.read(path, limit: ScriptText.maxBytes) } catch {
            try Console.err("Error: \(TerminalText.safe(label(path))): \(error)")
            throw ExitCode(Status.badScript.rawValue)
        }
        do { return try ScriptText.decode(bytes, file: label(path)) } catch {
            try Console.err("Error: \(TerminalText.safe(error.description))")
            throw ExitCode(Status.badScript.rawValue)
        }
    }

    public func run() async throws {
        // A signal stops the run as it stops `play`: the step under way at once (its
        // actuator stopped), then the summary, the record, JUnit and plots of what ran,
        // the lock released, and 128 + N (`Interruption`).
        Interruption.install()
        let jsonFile = try json.map { (p) throws(CLIError) in try OutputFile(p, purpose: "JSON record") }
        let junitFile = try junit.map { (p) throws(CLIError) in try OutputFile(p, purpose: "JUnit XML") }
        let metricsFile = try metrics.map { (p) throws(CLIError) in try OutputFile(p, purpose: "OpenMetrics figures") }
        if let plots { try Self.preparePlots(plots) }
        // Everything the files ask for is checked before any board is touched: the
        // bench, its actuators, the scripts and what they name (`TestScript.check`).
        let benchFile: BenchFile
        var scripts: [TestScript] = []
        do {
            benchFile = try BenchFile.parse(try Self.readText(bench), file: Self.label(bench))
            var profiles: [String: ActuatorProfile] = [:]
            for d in benchFile.devices { profiles[d.name] = try HILRunner.profile(for: d, bench: benchFile) }
            for t in tests {
                let script = try TestScript.parse(try Self.readText(t), file: Self.label(t), bench: benchFile)
                try script.check(against: benchFile, profiles: profiles)
                scripts.append(script)
            }
        } catch let e as ScriptError {
            try Console.err("Error: \(TerminalText.safe(e.description))")
            throw ExitCode(Status.badScript.rawValue)
        }
        // The same door the other commands open devices through: a hosted adapter gets its guardian.
        let catalog = DeviceCatalog(adapterSettings: HostedAdapterSettings(guardian: GuardCommand.choice))
        let lock = try await takeLocks(benchFile, catalog: catalog)
        defer { lock.release() }
        let interruption = RunInterruption()
        Interruption.shared.onInterrupt { _ in interruption.interrupt(reason: Interruption.shared.reason ?? "interrupted") }
        var options = HILRunner.Options()
        options.runTimeoutSeconds = timeout
        options.vanishWaitSeconds = vanishWait
        options.progress = { line in try? Console.err(TerminalText.safe(line)) }
        options.interruption = interruption
        let record: RunRecord
        do { record = try await HILRunner(bench: benchFile, scripts: scripts, options: options, catalog: catalog).run() } catch {
            try Console.err("Error: \(TerminalText.safe(error.description))")
            throw ExitCode(Status.badScript.rawValue)
        }
        lock.release()
        try Console.err(
            "\(record.tests.count) tests: \(record.count(.pass)) passed, \(record.count(.marginal)) marginal, \(record.count(.fail)) failed, "
                + "\(record.count(.error)) errors, \(record.count(.skipped)) skipped" + (record.aborted.map { "; run cut short: \($0)" } ?? ""))
        // Every output is tried, each failure one line: one that cannot be written (a
        // full disk, a FIFO nobody reads once a signal came) keeps none of the others.
        var failed = false
        func deliver(_ write: () throws -> Void) throws(StreamWriteError) {
            do { try write() } catch let e as StreamWriteError { throw e } catch {
                try Console.err("Error: \(TerminalText.safe("\(error)"))")
                failed = true
            }
        }
        // Plots first: JUnit attaches those that were written.
        var written: RunPlots?
        if let plots {
            var made = RunPlots(directory: plots)
            try deliver { try writePlots(record, into: &made) }
            written = made
        }
        if let jsonFile { try deliver { try jsonFile.write(RunReports.json(record)) } }
        // Farm mode: each device's own record beside the run's (`deviceRecordPaths`).
        if let jsonFile { try deliver { try writeDeviceRecords(record, beside: jsonFile) } }
        if let junitFile { try deliver { try junitFile.write(RunReports.junit(record, plots: written, testcaseFile: junitTestcaseFile)) } }
        if let metricsFile { try deliver { try metricsFile.write(RunReports.openMetrics(record)) } }
        try Interruption.shared.exitIfInterrupted()
        if failed { throw ExitCode(ExitStatus.failure.rawValue) }
        switch record.verdict {
        case .error: throw ExitCode(Status.error.rawValue)
        case .fail: throw ExitCode(Status.failed.rawValue)
        case .pass, .marginal, .skipped: return
        }
    }

    /// Every board the bench names, locked for the run (`BoardLock`), or the reason not:
    /// held by another run (exit 10, its holder named), the lock directory unusable
    /// (exit 1), a signal during `--wait` (128 + N).
    func takeLocks(_ bench: BenchFile, catalog: DeviceCatalog) async throws -> BoardLock {
        let directory = BoardLockDirectory.choose(option: lockDirectory, environment: ProcessInfo.processInfo.environment)
        let keys = bench.devices.flatMap { BoardLock.Key.keys(for: $0, catalog: catalog) }
        do {
            return try await BoardLock.acquire(
                keys, in: directory, waitSeconds: wait ?? 0, stop: { Interruption.shared.reason },
                progress: { line in try? Console.err(TerminalText.safe(line)) })
        } catch {
            switch error {
            case .busy:
                try Console.err("Error: \(TerminalText.safe(error.description))" + (wait == nil ? " (--wait [SECONDS] queues for it)" : ""))
                throw ExitCode(Status.boardBusy.rawValue)
            case .unusable:
                try Console.err("Error: \(TerminalText.safe(error.description))")
                throw ExitCode(ExitStatus.failure.rawValue)
            case .interrupted:
                try Console.err("hapbridge: \(error.description)")
                try Interruption.shared.exitIfInterrupted()
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
    }

    /// A run over several devices: each device's record (`RunRecord.record(of:)`) beside
    /// `--json FILE`, named by `RunReports.deviceRecordPaths` (`run.json` →
    /// `run.board-1.json`). Only beside a regular file: standard output, a FIFO or a
    /// device holds the run's record alone (said once). Each file is tried; the first
    /// failure is thrown after the rest are written.
    func writeDeviceRecords(_ record: RunRecord, beside json: OutputFile) throws {
        let devices = record.testedDevices
        guard devices.count > 1 else { return }
        guard let path = json.path, case .replace = try json.destination(of: path) else {
            try Console.err("note: the per-device records are written beside a --json file only, not to \(json.name): the run's record holds every device's tests")
            return
        }
        var first: (any Error)?
        for (device, file) in RunReports.deviceRecordPaths(beside: path, devices: devices) {
            do { try OutputFile(file, purpose: "JSON record of \(device)").write(RunReports.json(record.record(of: device))) } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    /// `--plots DIR`, made (with its parents) before the run, so that a path that is a
    /// file, or cannot be made, fails in a moment rather than after the run.
    static func preparePlots(_ directory: String) throws(CLIError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError("--plots \(TerminalText.echo(directory)): not a directory (plots are written into one, a file per step)") }
            return
        }
        var prefix = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            prefix += "/" + part
            guard mkdir(prefix, 0o777) == 0 || errno == EEXIST else {
                throw CLIError("--plots \(TerminalText.echo(directory)): cannot make \(TerminalText.echo(prefix)): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// One SVG per play, measure or sweep step of each test's last attempt, named as
    /// `RunPlots` says (`NN-test-stepM.svg`: the test's place in the run, the step's):
    /// the acceleration and drive of a play, the magnitude response of a sweep with f0
    /// and the −3 dB points marked (as `hapbridge sweep --plot` draws it). Each one
    /// written is noted in `plots`, so a failure part way keeps those before it.
    func writePlots(_ record: RunRecord, into plots: inout RunPlots) throws {
        try Self.preparePlots(plots.directory)  // made before the run; made again if it went meanwhile
        for (i, t) in record.tests.enumerated() {
            for s in t.attempts.last?.steps ?? [] {
                let title = "\(t.suite) › \(t.name): \(s.label)", subtitle = "\(s.verdict.rawValue) on \(t.device)"
                let plot: Plot
                if let trace = s.trace {
                    plot = trace.plot(title: title, subtitle: subtitle)
                } else if let sweep = s.sweep, let device = record.bench.device(named: t.device),
                    let profile = try? HILRunner.profile(for: device, bench: record.bench)
                {
                    plot = SweepCommand.plot(sweep, profile: profile, subtitle: "\(title) — \(subtitle)")
                } else {
                    continue
                }
                let file = plots.path(testIndex: i, test: t, stepIndex: s.index)
                try OutputFile(file, purpose: "plot").write(plot.svg())
                plots.wrote(file, testIndex: i, stepIndex: s.index)
            }
        }
    }
}
