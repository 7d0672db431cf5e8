import Actuators
import Bench
import DRV2605
import Devices
import Foundation
import Measurements

/// Runs test scripts on a bench: a health check of every device first, then each test
/// in order with its attempts (retries after ERROR, repeats after FAIL, each recorded),
/// each step under its own, its test's and the run's timeouts. A device that vanishes
/// mid-test makes the test an ERROR after a bounded wait for it to come back, and the
/// next test goes on.
public struct HILRunner: Sendable {
    public struct Options: Sendable {
        /// The whole run's wall-clock limit, s.
        public var runTimeoutSeconds: Double = 3600
        /// How long a vanished device is waited for, s.
        public var vanishWaitSeconds: Double = 10
        /// One line per step and per test, as they happen.
        public var progress: @Sendable (String) -> Void = { _ in }
        /// Stops the run from outside (`hapbridge run`'s signals): the step under way
        /// at once, nothing after it (`RunInterruption`).
        public var interruption = RunInterruption()
        public init() {}
    }

    public let bench: BenchFile
    public let scripts: [TestScript]
    public let options: Options
    let catalog: DeviceCatalog

    public init(bench: BenchFile, scripts: [TestScript], options: Options = Options(), catalog: DeviceCatalog = DeviceCatalog()) {
        self.bench = bench
        self.scripts = scripts
        self.options = options
        self.catalog = catalog
    }

    /// The actuator profile a bench device names (a path relative to the bench file).
    public static func profile(for device: BenchFile.Device, bench: BenchFile) throws(ScriptError) -> ActuatorProfile {
        let arg = device.actuator
        let isPath = arg.contains("/") || arg.hasSuffix(".json")
        let located = isPath ? path(arg, relativeTo: directory(of: bench.file)) : arg
        do { return try ActuatorProfileLoader.locate(located).profile } catch {
            let index = bench.devices.firstIndex { $0.name == device.name }.map { "[\($0)]" } ?? ""
            throw ScriptError(file: bench.file, line: device.actuatorLine, key: "devices\(index).actuator", rule: "\(error)")
        }
    }

    /// One test on one device: what the run does, in the order of the record (the
    /// scripts', then their tests', then the bench's devices).
    struct Entry: Sendable {
        var index: Int
        var script: TestScript
        var test: TestCase
        var device: BenchFile.Device
    }

    /// What one device's share of the run did: its results by entry, and why it stopped
    /// early (its health check, the run's timeout), if it did.
    struct DeviceShare: Sendable {
        var results: [(index: Int, result: TestResult)] = []
        var aborted: String?
    }

    public func run() async throws(ScriptError) -> RunRecord {
        // Devices run concurrently (farm mode): their progress lines are handed on one
        // at a time, each whole.
        let gate = NSLock()
        let hear = options.progress
        var serialized = options
        serialized.progress = { line in gate.withLock { hear(line) } }
        return try await HILRunner(bench: bench, scripts: scripts, options: serialized, catalog: catalog).runDevices()
    }

    /// Every device's share of the run, each in a task of its own (structured: the run
    /// ends when every device is done), so a board that vanishes, fails its health
    /// check or hangs in a step delays and ERRORs its own tests only. One device: as a
    /// run always was, its tests in order.
    func runDevices() async throws(ScriptError) -> RunRecord {
        let start = ContinuousClock.now
        let deadline = start + TimeLimits.duration(options.runTimeoutSeconds)
        let interruption = options.interruption
        let slots = try makeSlots()
        var entries: [Entry] = []
        for script in scripts {
            for test in script.tests {
                for device in bench.devices(matching: test.device) {
                    entries.append(Entry(index: entries.count, script: script, test: test, device: device))
                }
            }
        }
        // Progress names the device once a run spans several.
        let named = Set(entries.map(\.device.name)).count > 1
        let total = entries.count
        let tag: @Sendable (Entry) -> String = { e in
            "[\(e.index + 1)/\(total)] \(e.script.suite) › \(e.test.name)" + (named ? " [\(e.device.name)]" : "")
        }
        var record = RunRecord(bench: bench, devices: [], tests: [], aborted: nil, seconds: 0)
        // Health checks, every device at once; recorded in the bench's order.
        let checked = await withTaskGroup(of: (Int, DeviceHealth?).self) { group in
            for (i, d) in bench.devices.enumerated() {
                guard let slot = slots[d.name] else { continue }
                group.addTask {
                    guard interruption.reason == nil else { return (i, nil) }
                    let h = await health(slot)
                    let status = h.problem.map { "ERROR: \($0)" } ?? "OK, " + Self.identityText(h)
                    options.progress("health \(d.name) (\(d.address)): \(status)")
                    return (i, h)
                }
            }
            var found: [(Int, DeviceHealth?)] = []
            for await h in group { found.append(h) }
            return found.sorted { $0.0 < $1.0 }.compactMap(\.1)
        }
        record.devices = checked
        if let why = interruption.reason {
            record.aborted = why  // a health check cut short says nothing of the device
        } else if let bad = record.devices.first(where: { $0.problem != nil }) {
            record.aborted = "health check failed on \(bad.name) (\(bad.address)): \(bad.problem ?? "")"
        }
        let runAborted = record.aborted
        let shares = await withTaskGroup(of: (String, DeviceShare).self) { group in
            for d in bench.devices {
                guard let slot = slots[d.name] else { continue }
                let mine = entries.filter { $0.device.name == d.name }
                // A device whose health check failed runs nothing; one run on with a
                // healthy board beside a sick one (several devices) runs its own.
                let health = record.devices.first { $0.name == d.name }
                let sick = health?.problem.map { "health check failed on \(d.name) (\(d.address)): \($0)" }
                let before = bench.devices.count == 1 || interruption.reason != nil ? runAborted : sick
                group.addTask {
                    var share = DeviceShare(aborted: before)
                    for e in mine {
                        let tag = tag(e)
                        if let why = interruption.reason {
                            share.aborted = share.aborted ?? why
                            share.results.append((e.index, TestResult(suite: e.script.suite, file: e.script.file, name: e.test.name, device: d.name, verdict: .skipped, message: "not run: \(why)", attempts: [])))
                            options.progress("\(tag): SKIP (not run: \(why))")
                            continue
                        }
                        if let why = share.aborted {
                            share.results.append((e.index, TestResult(suite: e.script.suite, file: e.script.file, name: e.test.name, device: d.name, verdict: .error, message: "not run: \(why)", attempts: [])))
                            options.progress("\(tag): ERROR (not run)")
                            continue
                        }
                        let missing = e.test.requires.filter { !bench.features.contains($0) }
                        if !missing.isEmpty {
                            let why = "needs \(missing.joined(separator: ", ")), which the bench \(bench.name) lacks"
                            share.results.append((e.index, TestResult(suite: e.script.suite, file: e.script.file, name: e.test.name, device: d.name, verdict: .skipped, message: why, attempts: [])))
                            options.progress("\(tag): SKIP (\(why))")
                            continue
                        }
                        let result = await runTest(e.test, script: e.script, slot: slot, tag: tag, runDeadline: deadline)
                        share.results.append((e.index, result))
                        options.progress("\(tag): \(result.verdict.rawValue)\(result.message.map { " — \($0)" } ?? "") (\(result.attempts.count) attempt(s))")
                        if ContinuousClock.now >= deadline, share.aborted == nil {
                            share.aborted = "the run's timeout (\(Limit.format(options.runTimeoutSeconds)) s) passed"
                        }
                    }
                    // The bench is left as it was found: a board the last test unplugged is plugged back in.
                    if let line = await slot.restore(within: max(options.vanishWaitSeconds, StepExecution.replugWaitSeconds)) { options.progress(line) }
                    return (d.name, share)
                }
            }
            var done: [String: DeviceShare] = [:]
            for await (name, share) in group { done[name] = share }
            return done
        }
        record.tests = shares.values.flatMap(\.results).sorted { $0.index < $1.index }.map(\.result)
        for d in bench.devices {
            if let why = shares[d.name]?.aborted { record.deviceAborted[d.name] = why }
        }
        // The run's own: the first device's reason in the bench's order (its health
        // check, the run's timeout), as a run on one device always said it.
        record.aborted = record.aborted ?? bench.devices.lazy.compactMap { shares[$0.name]?.aborted }.first
        if let why = interruption.reason {
            record.interruption = why
            record.aborted = record.aborted ?? why
        }
        record.seconds = DeviceSlot.seconds(ContinuousClock.now - start)
        return record
    }

    /// Each bench device's slot, by name. Several devices each get a libusb context of
    /// their own (`DeviceCatalog.withOwnUSBContext`): with one event thread for all, a
    /// farm of emulated boards ran 1.9× one board's time, each with its own 1.4×
    /// (Examples/hil/README.md, "Farm mode").
    func makeSlots() throws(ScriptError) -> [String: DeviceSlot] {
        var slots: [String: DeviceSlot] = [:]
        let ownContexts = bench.devices.count > 1
        for d in bench.devices {
            slots[d.name] = DeviceSlot(
                spec: d, profile: try Self.profile(for: d, bench: bench), catalog: ownContexts ? catalog.withOwnUSBContext() : catalog,
                fitsAccelerometer: bench.features.contains(BenchFile.accelerometerFeature), interruption: options.interruption)
        }
        return slots
    }

    /// HELLO (identity: serial, firmware), the chip's ID and the supply it reads.
    func health(_ slot: DeviceSlot) async -> DeviceHealth {
        var h = DeviceHealth(name: slot.spec.name, address: slot.spec.address.description, actuator: slot.profile.id)
        let bench: BridgeBench
        do { bench = try await StepExecution.openBench(slot) } catch {
            h.problem = Self.text(error)
            return h
        }
        h.serialNumber = bench.identity.serialNumber
        h.firmwareVersion = bench.identity.firmwareVersion
        h.protocolVersion = bench.identity.protocolVersion
        var driver = DRV2605Driver(bus: bench.bus)
        do {
            h.chip = "\(try await driver.detect())"
            try await driver.reset()
            try await driver.setStandby(false)
            let v = try await driver.supplyVoltage()
            h.supplyVolts = v
            try await driver.setStandby(true)
        } catch {
            h.problem = "\(error)"
        }
        await bench.close()
        return h
    }

    func runTest(_ test: TestCase, script: TestScript, slot: DeviceSlot, tag: String, runDeadline: ContinuousClock.Instant) async -> TestResult {
        var attempts: [Attempt] = []
        var retries = test.retries, repeats = test.repeats
        var reason = Attempt.Reason.first
        while true {
            let a = await attempt(test, number: attempts.count + 1, reason: reason, script: script, slot: slot, tag: tag, runDeadline: runDeadline)
            attempts.append(a)
            guard ContinuousClock.now < runDeadline, options.interruption.reason == nil else { break }
            if a.verdict == .error, retries > 0 {
                retries -= 1
                reason = .retryAfterError
            } else if a.verdict == .fail, repeats > 0 {
                repeats -= 1
                reason = .repeatAfterFail
            } else {
                break
            }
            options.progress("\(tag): \(a.verdict.rawValue), \(reason.rawValue) (attempt \(attempts.count + 1))")
        }
        let last = attempts.last
        return TestResult(
            suite: script.suite, file: script.file, name: test.name, device: slot.spec.name, verdict: last?.verdict ?? .error,
            message: last?.message, attempts: attempts)
    }

    func attempt(
        _ test: TestCase, number: Int, reason: Attempt.Reason, script: TestScript, slot: DeviceSlot, tag: String, runDeadline: ContinuousClock.Instant
    ) async -> Attempt {
        let start = ContinuousClock.now
        let testDeadline = start + TimeLimits.duration(test.timeoutSeconds)
        let interruption = options.interruption
        // Set when the run was interrupted in this attempt: where, for its message.
        var interrupted: String?
        // Each attempt starts on the bench as set up: a device an earlier test or
        // attempt unplugged is plugged back in (and awaited) first.
        if let line = await slot.restore(within: max(options.vanishWaitSeconds, StepExecution.replugWaitSeconds)) { options.progress("\(tag) #\(number): \(line)") }
        var steps: [StepResult] = []
        let directory = Self.directory(of: script.file)
        for (i, step) in test.steps.enumerated() {
            let label = Self.label(step)
            if let why = interruption.reason {
                interrupted = "\(why) before step \(i + 1) \(label)"
                break
            }
            let stepStart = ContinuousClock.now
            // The tightest of the step's, the test's and the run's limits.
            var limit = (seconds: DeviceSlot.seconds(testDeadline - stepStart), whose: "test \(Limit.format(test.timeoutSeconds)) s")
            if let s = step.timeoutSeconds, s < limit.seconds { limit = (s, "step \(Limit.format(s)) s") }
            let runLeft = DeviceSlot.seconds(runDeadline - stepStart)
            if runLeft < limit.seconds { limit = (runLeft, "run \(Limit.format(options.runTimeoutSeconds)) s") }
            let prefix = "\(tag) #\(number) step \(i + 1) \(label)"
            let progress = options.progress
            // A flash is the one step an interruption does not cut (half a page written
            // is half a firmware): the live output says so while it finishes.
            var result = await interruption.whileRunning(onInterrupt: { why in
                if step.kind == .flash { progress("\(prefix): \(why): the flash runs to its end (it is not cut mid-write), then the run stops") }
            }) {
                await execute(step, index: i, on: slot, directory: directory, limit: limit) { progress("\(prefix): \($0)") }
            }
            result.seconds = DeviceSlot.seconds(ContinuousClock.now - stepStart)
            if let why = interruption.reason {
                // Interrupted under this step: it was cut (its actuator stopped at once),
                // so what it did is no verdict; a flash was not cut and keeps its own.
                if step.kind == .flash {
                    interrupted = "\(why) during step \(i + 1) \(label), which ran to its end"
                } else {
                    result.verdict = .error
                    result.message = why
                    interrupted = "\(why) during step \(i + 1) \(label)"
                }
            }
            steps.append(result)
            options.progress("\(tag) #\(number) step \(i + 1) \(label): \(result.verdict.rawValue)\(result.message.map { " — \($0)" } ?? "")")
            if result.verdict == .error || interrupted != nil { break }  // nothing after it can be trusted
        }
        let seconds = DeviceSlot.seconds(ContinuousClock.now - start)
        // An attempt the run's interruption cut short is an ERROR whatever its steps said.
        if let interrupted { return Attempt(number: number, reason: reason, verdict: .error, message: interrupted, steps: steps, seconds: seconds) }
        let verdict = steps.map(\.verdict).filter { $0 != .skipped }.max() ?? .pass
        let message = steps.first { $0.verdict == verdict && $0.message != nil }.map { "step \($0.index + 1) \($0.label): \($0.message ?? "")" }
        return Attempt(number: number, reason: reason, verdict: verdict, message: verdict == .pass ? nil : message, steps: steps, seconds: seconds)
    }

    /// One step under its time limit, its limits applied to what it measured: a figure
    /// outside them FAILs (MARGINAL inside the band), one not measured is an ERROR, and
    /// a device gone missing under an ERROR is said as such after a bounded wait for it.
    func execute(
        _ step: Step, index i: Int, on slot: DeviceSlot, directory: String, limit: (seconds: Double, whose: String),
        note: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> StepResult {
        let label = Self.label(step)
        var result = StepResult(index: i, kind: step.kind, label: label, verdict: .pass, message: nil, measurements: [], figures: [], seconds: 0, trace: nil)
        do throws(StepProblem) {
            guard limit.seconds > 0 else { throw StepProblem.timedOut(seconds: 0, whose: limit.whose) }
            let outcome = try await withTimeout(limit.seconds, whose: limit.whose) { () throws(StepProblem) in
                try await StepExecution.run(step, on: slot, scriptDirectory: directory, note: note)
            }
            result.verdict = outcome.verdict
            result.message = outcome.message
            result.figures = outcome.figures
            result.trace = outcome.trace
            result.sweep = outcome.sweep
            for l in step.limits {
                if let f = outcome.figures.first(where: { $0.name == l.figure.measurementName(in: step.kind) }) {
                    let v = l.verdict(f.value)
                    result.measurements.append(MeasuredResult(limit: l, value: f.value, verdict: v, note: nil))
                    if v == .fail, result.message == nil {
                        result.message = "\(l.name) = \(f.unit.format(f.value))\(f.unit.suffix), outside \(l.text)"
                    }
                    result.verdict = max(result.verdict, v)
                } else {
                    let why = outcome.unmeasured.first { $0.hasPrefix(l.figure.measurementName(in: step.kind)) } ?? outcome.unmeasured.first ?? "the step did not measure it"
                    result.measurements.append(MeasuredResult(limit: l, value: nil, verdict: .error, note: why))
                    result.verdict = .error
                    if result.message == nil { result.message = "\(l.name) not measured: \(why)" }
                }
            }
        } catch {
            result.verdict = .error
            result.message = Self.text(error)
            result.measurements = step.limits.map { MeasuredResult(limit: $0, value: nil, verdict: .error, note: "the step did not finish") }
        }
        // An ERROR with the device gone (a step that failed under it, a play the
        // engine stopped for it) is said as such, after a bounded wait for it.
        if result.verdict == .error, !slot.isPresent, options.interruption.reason == nil {
            let name = "\(slot.spec.name) (\(slot.spec.address))"
            if !slot.isSimulated { note("\(name) is gone: waiting up to \(Limit.format(options.vanishWaitSeconds)) s for it to come back") }
            if let back = await slot.awaitReturn(within: options.vanishWaitSeconds) {
                result.message = "\(name) vanished mid-test and came back after \(String(format: "%.1f", back)) s: \(result.message ?? "")"
            } else {
                result.message = "\(name) vanished mid-test and did not come back within \(Limit.format(slot.isSimulated ? 0 : options.vanishWaitSeconds)) s: \(result.message ?? "")"
            }
        }
        return result
    }

    /// The directory a bench file's or script's relative paths start from: the file's
    /// own, "." for a file named without one (`hapbridge run bench.yaml suite.yaml`) or
    /// read from standard input. Taken from the path's text up to its last "/", not
    /// with NSString, whose path functions trap on "-".
    static func directory(of file: String) -> String {
        guard let slash = file.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let directory = String(file[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// A path a file names (a pattern, an image, a profile): as given when absolute,
    /// else under `directory` (the file's own: `directory(of:)`).
    static func path(_ name: String, relativeTo directory: String) -> String {
        name.hasPrefix("/") ? name : "\(directory)/\(name)"
    }

    static func identityText(_ h: DeviceHealth) -> String {
        let supply = h.supplyVolts.map { String(format: "%.2f V", $0) } ?? "?"
        return "serial \(h.serialNumber ?? "?"), firmware \(h.firmwareVersion ?? "?"), chip \(h.chip ?? "?"), VBAT \(supply)"
    }

    static func label(_ step: Step) -> String {
        switch step.action {
        case .calibrate(let runs): runs == 1 ? "calibrate" : "calibrate ×\(runs)"
        case .diagnose: "diagnose"
        case .play(let p): "play \(p)"
        case .measure(let p): "measure \(p)"
        case .compare(let r, let p, _): "compare \(p) with \(r)"
        case .sweep(let o):
            "sweep" + (o.fromHz != nil || o.toHz != nil ? " \(o.fromHz.map(Limit.format) ?? "…")–\(o.toHz.map(Limit.format) ?? "…") Hz" : "")
        case .wait(let ms): "wait \(Limit.format(ms)) ms"
        case .flash(let image): "flash \(image ?? "(carried firmware)")"
        case .unplug: "unplug"
        case .replug: "replug"
        }
    }

    static func text(_ problem: StepProblem) -> String {
        switch problem {
        case .timedOut(let s, let whose): "timed out after \(String(format: "%.3f", s)) s (the \(whose) limit)"
        case .error(let line): line
        }
    }
}
