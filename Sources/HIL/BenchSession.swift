import Actuators
import DeviceInterface
import Devices
import FileAccess
import Foundation
import Measurements

/// A bench held open by a process that runs steps one at a time as its own code asks
/// (a user's `swift test` through `import HapbridgeTesting`), rather than from a script:
/// its boards' locks (`BoardLock`) taken for the session's life, every device health-checked on open, and
/// each step run by the very code `hapbridge run` uses (`HILRunner.execute`: the same
/// measurements, limits, verdicts and vanished-device handling), recorded into a
/// `RunRecord` that `RunReports` writes as the same JSON record and JUnit XML.
///
/// Steps are serialized: tests run in parallel by default, and one board does one thing
/// at a time.
public final class BenchSession: Sendable {
    /// Why a bench could not be opened.
    public enum OpenError: Error, Sendable, CustomStringConvertible {
        /// The bench file, or an address or actuator, cannot be used: file:line: key: rule.
        case badBench(ScriptError)
        /// Another run holds one of the bench's boards (`BoardLockError.busy`: who).
        case busy(String)
        /// The boards' locks cannot be taken: the lock directory or a lock file is
        /// unusable (`BoardLockError.unusable`).
        case lockUnusable(String)
        /// A device failed its health check (HELLO, the chip's ID, VBAT).
        case unhealthy(DeviceHealth)

        public var description: String {
            switch self {
            case .badBench(let e): e.description
            case .busy(let why): why
            case .lockUnusable(let why): why
            case .unhealthy(let h): "health check failed on \(h.name) (\(h.address)): \(h.problem ?? "?")"
            }
        }
    }

    public struct Options: Sendable {
        /// Where the boards' locks are (nil: `$HAPBRIDGE_LOCK_DIR`, else the host's:
        /// `BoardLockDirectory`).
        public var lockDirectory: String?
        /// How long a board another run holds is waited for, s (0: not at all).
        public var lockWaitSeconds = 0.0
        /// A step's wall-clock limit when it gives none, s.
        public var stepTimeoutSeconds = 120.0
        /// How long a vanished device is waited for, s.
        public var vanishWaitSeconds = 10.0
        public init() {}
    }

    public let bench: BenchFile
    /// The health check's findings, one per device, in the bench file's order.
    public let health: [DeviceHealth]
    let slots: [String: DeviceSlot]
    let runner: HILRunner
    let lock: BoardLock
    let options: Options
    let gate = StepGate()
    let log = SessionLog()
    let start = ContinuousClock.now
    let started = Date()

    /// Opens a bench file (YAML, `bench.schema.json`).
    public static func open(benchFile path: String, options: Options = Options(), catalog: DeviceCatalog = DeviceCatalog()) async throws(OpenError) -> BenchSession {
        let bytes: [UInt8]
        do { bytes = try FileReader.read(FilePath(path), limit: ScriptText.maxBytes) } catch {
            throw .badBench(ScriptError(file: path, line: nil, key: "", rule: "\(error)"))
        }
        let bench: BenchFile
        do { bench = try BenchFile.parse(try ScriptText.decode(bytes, file: path), file: path) } catch { throw .badBench(error) }
        return try await BenchSession(bench: bench, options: options, catalog: catalog)
    }

    /// A bench of one device by address (`sim`, `usb`, `usb:SERIAL`, `usb:1-2`, `ftdi`)
    /// with `actuator` mounted (a profile name or a .json path), named for the address,
    /// offering `features`.
    public static func open(
        address: String, actuator: String, features: Set<String> = [], options: Options = Options(), catalog: DeviceCatalog = DeviceCatalog()
    ) async throws(OpenError) -> BenchSession {
        let parsed: DeviceAddress
        do { parsed = try DeviceAddress(parsing: address) } catch {
            throw .badBench(ScriptError(file: "(address)", line: nil, key: "address", rule: error.rule))
        }
        let name = String(address.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "-" })
        let bench = BenchFile(
            name: name.isEmpty ? "bench" : name, devices: [.init(name: "dut", address: parsed, actuator: actuator)], features: features,
            file: FileManager.default.currentDirectoryPath + "/(\(address))")
        return try await BenchSession(bench: bench, options: options, catalog: catalog)
    }

    init(bench: BenchFile, options: Options, catalog: DeviceCatalog) async throws(OpenError) {
        var slots: [String: DeviceSlot] = [:]
        for d in bench.devices {
            do { slots[d.name] = DeviceSlot(
                    spec: d, profile: try HILRunner.profile(for: d, bench: bench), catalog: catalog,
                    fitsAccelerometer: bench.features.contains(BenchFile.accelerometerFeature)) } catch { throw .badBench(error) }
        }
        let directory = BoardLockDirectory.choose(option: options.lockDirectory, environment: ProcessInfo.processInfo.environment)
        let keys = bench.devices.flatMap { BoardLock.Key.keys(for: $0, catalog: catalog) }
        do { lock = try await BoardLock.acquire(keys, in: directory, waitSeconds: options.lockWaitSeconds) } catch {
            switch error {
            case .busy: throw .busy(error.description)
            case .unusable, .interrupted: throw .lockUnusable(error.description)
            }
        }
        var runnerOptions = HILRunner.Options()
        runnerOptions.vanishWaitSeconds = options.vanishWaitSeconds
        let runner = HILRunner(bench: bench, scripts: [], options: runnerOptions, catalog: catalog)
        var health: [DeviceHealth] = []
        for d in bench.devices {
            guard let slot = slots[d.name] else { continue }
            let h = await runner.health(slot)
            if h.problem != nil {
                lock.release()
                throw .unhealthy(h)
            }
            health.append(h)
        }
        self.bench = bench
        self.slots = slots
        self.runner = runner
        self.options = options
        self.health = health
    }

    /// The device a step runs on: by name, or the bench's first.
    public func device(named name: String? = nil) -> BenchFile.Device? { bench.device(named: name) }

    /// The actuator profile on a device.
    public func profile(of device: String? = nil) -> ActuatorProfile? { bench.device(named: device).flatMap { slots[$0.name]?.profile } }

    /// Runs one step (its limits applied, as `hapbridge run` does) on `device` (default:
    /// the first), after any step already running ends; records it under `test` of
    /// `suite`. A step's ERROR (a device that vanished, a timeout) is its verdict, not a
    /// throw: the caller decides.
    public func run(_ step: Step, device: String? = nil, test: String, suite: String) async -> StepResult {
        await gate.acquire()
        let result: StepResult
        if let spec = bench.device(named: device), let slot = slots[spec.name] {
            let begin = ContinuousClock.now
            let limit = step.timeoutSeconds ?? options.stepTimeoutSeconds
            var r = await runner.execute(
                step, index: log.nextIndex(test: test, suite: suite), on: slot, directory: FileManager.default.currentDirectoryPath,
                limit: (limit, "step \(Limit.format(limit)) s"))
            r.seconds = DeviceSlot.seconds(ContinuousClock.now - begin)
            result = r
        } else {
            result = StepResult(
                index: log.nextIndex(test: test, suite: suite), kind: step.kind, label: HILRunner.label(step), verdict: .error,
                message: "the bench \(bench.name) has no device \(device ?? "?") (it has \(bench.devices.map(\.name).joined(separator: ", ")))",
                measurements: [], figures: [], seconds: 0, trace: nil)
        }
        await gate.release()
        log.append(result, test: test, suite: suite, file: bench.file, device: bench.device(named: device)?.name ?? device ?? "?")
        return result
    }

    /// Records `test` as SKIP with the reason (a feature the bench lacks), as `hapbridge
    /// run` records a test whose `requires` the bench does not meet.
    public func skip(test: String, suite: String, reason: String) {
        log.skip(test: test, suite: suite, file: bench.file, device: bench.devices.first?.name ?? "?", reason: reason)
    }

    /// Everything run so far, as `hapbridge run` records a run: one test per name, its
    /// steps in the order they ran (one attempt: a Swift test repeats itself).
    public var record: RunRecord {
        var r = RunRecord(bench: bench, devices: health, tests: log.tests, aborted: nil, seconds: 0)
        r.started = started
        r.seconds = DeviceSlot.seconds(ContinuousClock.now - start)
        return r
    }

    /// Releases the boards' locks. Steps after this still run (the lock is advisory);
    /// don't.
    public func close() { lock.release() }
}

/// One step at a time, in the order asked (a FIFO of waiters).
actor StepGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}

/// The session's tests as they accumulate (a lock: appended from any task).
final class SessionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [TestResult] = []
    private var counters: [String: Int] = [:]

    func nextIndex(test: String, suite: String) -> Int {
        lock.withLock {
            let key = suite + "\u{0}" + test
            defer { counters[key, default: 0] += 1 }
            return counters[key, default: 0]
        }
    }

    func append(_ step: StepResult, test: String, suite: String, file: String, device: String) {
        lock.withLock {
            if let i = results.firstIndex(where: { $0.suite == suite && $0.name == test }), var attempt = results[i].attempts.first {
                attempt.steps.append(step)
                attempt.seconds += step.seconds
                attempt.verdict = Self.verdict(attempt.steps)
                attempt.message = Self.message(attempt.steps, verdict: attempt.verdict)
                results[i].attempts = [attempt]
                results[i].verdict = attempt.verdict
                results[i].message = attempt.message
            } else {
                let verdict = Self.verdict([step])
                let message = Self.message([step], verdict: verdict)
                let attempt = Attempt(number: 1, reason: .first, verdict: verdict, message: message, steps: [step], seconds: step.seconds)
                results.append(TestResult(suite: suite, file: file, name: test, device: device, verdict: verdict, message: message, attempts: [attempt]))
            }
        }
    }

    func skip(test: String, suite: String, file: String, device: String, reason: String) {
        lock.withLock {
            guard !results.contains(where: { $0.suite == suite && $0.name == test }) else { return }
            results.append(TestResult(suite: suite, file: file, name: test, device: device, verdict: .skipped, message: reason, attempts: []))
        }
    }

    var tests: [TestResult] { lock.withLock { results } }

    static func verdict(_ steps: [StepResult]) -> Verdict { steps.map(\.verdict).filter { $0 != .skipped }.max() ?? .pass }

    static func message(_ steps: [StepResult], verdict: Verdict) -> String? {
        guard verdict != .pass else { return nil }
        return steps.first { $0.verdict == verdict && $0.message != nil }.map { "step \($0.index + 1) \($0.label): \($0.message ?? "")" }
    }
}
