import Bench
import FileAccess
import Foundation
import HIL
import Measurements
import Testing

/// A bench opened for Swift Testing: a bench file or one device by address, its lock
/// held and every device health-checked on open, and the HIL measurements as async
/// functions. Each returns a `BenchResult` (the figures with their units and, given
/// limits, a verdict to `#expect` on), is recorded into the same JSON record and JUnit
/// XML `hapbridge run` writes, and is attached to the running test.
///
/// Open it for a suite with the `.bench(…)` trait and reach it as `TestBench.current`,
/// or for a block with `withBench(…) { bench in … }`. Steps run one at a time even when
/// tests run in parallel: one board does one thing at a time.
public final class TestBench: Sendable {
    /// A step that could not come to a verdict (the device vanished, it timed out or
    /// could not run): an ERROR in `hapbridge run`'s terms, a thrown error here.
    public struct StepError: Error, Sendable, CustomStringConvertible {
        public var result: BenchResult
        public var description: String { "\(result.label): ERROR — \(result.message ?? "no verdict")" }
    }

    /// Where the boards' locks are and how long a board in use is waited for, a step's
    /// time limit, and where the record is written when the bench closes (`RunReports`'
    /// formats). With none of `json`, `junit` and `metrics` given, `$HAPBRIDGE_HIL_RECORD`
    /// (a directory) gets `BENCH.json`, `BENCH.junit.xml` and `BENCH.metrics.txt`: a CI job
    /// collects every bench's record without a change to the tests.
    public struct Options: Sendable {
        /// The boards' locks' directory (nil: $HAPBRIDGE_LOCK_DIR, else the host's,
        /// /run/lock/hapbridge: `BoardLockDirectory`).
        public var lockDirectory: String?
        /// How long a board another bench holds (another suite in this `swift test`, a
        /// `hapbridge run`, another user) is waited for, s: benches on one board take
        /// turns rather than fail. 0 refuses at once.
        public var lockWaitSeconds: Double = 600
        /// The JSON record (`hapbridge-hil-run/1`), written on close.
        public var json: String?
        /// JUnit XML, written on close.
        public var junit: String?
        /// OpenMetrics text (every figure a gauge, as `hapbridge run --metrics`), written on close.
        public var metrics: String?
        /// A step's wall-clock limit, s.
        public var stepTimeoutSeconds: Double = 120

        public init(
            lockDirectory: String? = nil, json: String? = nil, junit: String? = nil, metrics: String? = nil, stepTimeoutSeconds: Double = 120
        ) {
            self.lockDirectory = lockDirectory
            self.json = json
            self.junit = junit
            self.metrics = metrics
            self.stepTimeoutSeconds = stepTimeoutSeconds
        }
    }

    /// The bench the `.bench(…)` trait opened for the running suite or test.
    @TaskLocal public static var current: TestBench?

    public let session: BenchSession
    public let options: Options
    /// The suite name steps are recorded under (the suite's, under the trait).
    let suite: String

    init(session: BenchSession, options: Options, suite: String) {
        self.session = session
        self.options = options
        self.suite = suite
    }

    /// Opens a bench file (YAML: `Examples/hil/bench.schema.json`).
    public static func open(_ benchFile: String, options: Options = Options(), suite: String? = nil) async throws(BenchSession.OpenError) -> TestBench {
        let session = try await BenchSession.open(benchFile: benchFile, options: sessionOptions(options))
        return TestBench(session: session, options: options, suite: suite ?? session.bench.name)
    }

    /// Opens one device by address (`sim`, `usb`, `usb:SERIAL`, `usb:1-2`, `ftdi`) with
    /// `actuator` mounted (a profile name from Hardware/actuators or a .json path).
    public static func open(
        address: String, actuator: String, features: Set<String> = [], options: Options = Options(), suite: String? = nil
    ) async throws(BenchSession.OpenError) -> TestBench {
        let session = try await BenchSession.open(address: address, actuator: actuator, features: features, options: sessionOptions(options))
        return TestBench(session: session, options: options, suite: suite ?? session.bench.name)
    }

    static func sessionOptions(_ o: Options) -> BenchSession.Options {
        var s = BenchSession.Options()
        s.lockDirectory = o.lockDirectory
        s.lockWaitSeconds = o.lockWaitSeconds
        s.stepTimeoutSeconds = o.stepTimeoutSeconds
        return s
    }

    /// The bench's name (from its file, or the address).
    public var name: String { session.bench.name }
    /// Its feature tags.
    public var features: Set<String> { session.bench.features }
    /// What the health check found on each device (serial, firmware, chip, VBAT).
    public var health: [DeviceHealth] { session.health }
    public func has(_ feature: String) -> Bool { features.contains(feature) }

    /// Skips (cancels) the running test, with the reason, unless the bench has every
    /// one of `features`.
    public func require(_ features: String..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        let missing = features.filter { !has($0) }
        guard missing.isEmpty else { try skip(lacking: missing, sourceLocation: sourceLocation) }
    }

    /// Records the running test as SKIP (as `hapbridge run` does) and cancels it.
    func skip(lacking missing: [String], sourceLocation: SourceLocation) throws -> Never {
        let reason = "needs \(missing.joined(separator: ", ")), which the bench \(name) lacks"
        session.skip(test: Self.testName, suite: suite, reason: reason)
        #if compiler(>=6.3)
            try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
        #else
            // Swift Testing before 6.3 cannot skip a running test: it ends with the reason.
            throw Skipped(reason: reason)
        #endif
    }

    /// A test ended because the bench lacks a feature (Swift Testing before 6.3).
    public struct Skipped: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "skipped: \(reason)" }
    }

    /// The running test's name as the record gives it.
    static var testName: String { Test.current.map { $0.displayName ?? $0.name } ?? "(outside a test)" }

    /// A bench file's feature tags, read without opening it: for
    /// `.enabled(if: TestBench.features(of: "bench.yaml").contains("lis3dh"))`, which
    /// Swift Testing evaluates before any bench is open. Empty when it cannot be read.
    public static func features(of benchFile: String) -> Set<String> {
        guard let text = try? String(contentsOfFile: benchFile, encoding: .utf8), let bench = try? BenchFile.parse(text, file: benchFile) else { return [] }
        return bench.features
    }

    // MARK: measurements

    /// Identity, supply, the open/short diagnostic and faults; f0 from LRA_PERIOD on an
    /// LRA when `limits` name `.f0`.
    public func diagnose(limits: [Limit] = [], device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .diagnose, kind: .diagnose, limits: limits), device: device)
    }

    /// Auto-calibration `runs` times: pass rate and the registers' spread.
    public func calibrate(runs: Int = 1, limits: [Limit] = [], device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .calibrate(runs: runs), kind: .calibrate, limits: limits), device: device)
    }

    /// A pattern file or a built-in haptic ("ios.impact.heavy") played to its end.
    public func play(_ pattern: String, device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .play(pattern), kind: .play), device: device)
    }

    /// The same, measuring peak and RMS acceleration, rise, lag and stop time.
    public func measure(_ pattern: String, limits: [Limit] = [], device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .measure(pattern), kind: .measure, limits: limits), device: device)
    }

    /// An LRA's open-loop frequency response (`hapbridge sweep`): f0, Q, the −3 dB
    /// bandwidth (`result.sweep` holds the points and the fit).
    public func sweep(from: Double? = nil, to: Double? = nil, level: Double = 1, limits: [Limit] = [], device: String? = nil) async throws -> BenchResult {
        var o = FrequencySweep.Options()
        o.fromHz = from
        o.toHz = to
        o.level = level
        return try await run(Step(action: .sweep(o), kind: .sweep, limits: limits), device: device)
    }

    // MARK: the bench's hardware

    /// Programs a bridge board (`usb:…`) as `hapbridge flash --device` does: `image` (an
    /// Intel HEX or ELF path; nil: the firmware hapbridge carries), checked before
    /// anything is erased, written, verified, and the firmware awaited back on its port.
    /// `result.figures` holds the written and verified bytes; SKIP on sim.
    public func flash(image: String? = nil, device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .flash(image: image), kind: .flash), device: device)
    }

    /// Cuts the device's USB power: under `hapbridge emulate bridge` through its control
    /// socket, else through the bench file's switchable hub port (`power: {uhubctl: …}`);
    /// SKIP with the reason where the device has neither. A step on the device then
    /// ERRORs, after the bounded wait for it to come back.
    public func unplug(device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .unplug, kind: .unplug), device: device)
    }

    /// Restores the power and waits (bounded) for the device to be back on USB; an
    /// ERROR when it is not.
    public func replug(device: String? = nil) async throws -> BenchResult {
        try await run(Step(action: .replug, kind: .replug), device: device)
    }

    /// Any step, as a script writes it: recorded under the running test's name, attached
    /// to it, and thrown as `StepError` when it ends in ERROR.
    public func run(_ step: Step, device: String? = nil) async throws -> BenchResult {
        var step = step
        // `Limit(.f0)` is named as its first step names it; a sweep names its f0 its own way.
        for i in step.limits.indices where step.limits[i].name == step.limits[i].figure.measurementName {
            step.limits[i].name = step.limits[i].figure.measurementName(in: step.kind)
        }
        let test = Self.testName
        let result = BenchResult(step: await session.run(step, device: device, test: test, suite: suite))
        #if compiler(>=6.2)
            Attachment.record(result.description + "\n", named: "\(result.label).txt")
        #endif
        if result.verdict == .error { throw StepError(result: result) }
        return result
    }

    // MARK: record

    /// Everything measured so far, as `hapbridge run` records a run.
    public var record: RunRecord { session.record }

    /// Writes the record (`Options.json`, `.junit`, `.metrics`) and releases the boards' locks.
    public func close() throws {
        defer { session.close() }
        var json = options.json, junit = options.junit, metrics = options.metrics
        if json == nil, junit == nil, metrics == nil, let dir = ProcessInfo.processInfo.environment["HAPBRIDGE_HIL_RECORD"], !dir.isEmpty {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            json = "\(dir)/\(name).json"
            junit = "\(dir)/\(name).junit.xml"
            metrics = "\(dir)/\(name).metrics.txt"
        }
        let r = record
        // Through the one safe writer, as `hapbridge run` writes them.
        if let json { try FileWriter.write(RunReports.json(r), to: FilePath(json)) }
        if let junit { try FileWriter.write(RunReports.junit(r), to: FilePath(junit)) }
        if let metrics { try FileWriter.write(RunReports.openMetrics(r), to: FilePath(metrics)) }
    }
}

/// Opens a bench file for `body` and closes it after, whatever `body` does.
public func withBench<T>(
    _ benchFile: String, options: TestBench.Options = TestBench.Options(), _ body: (TestBench) async throws -> T
) async throws -> T {
    let bench = try await TestBench.open(benchFile, options: options)
    return try await closing(bench, body)
}

/// Opens one device by address for `body` and closes it after.
public func withBench<T>(
    address: String, actuator: String, features: Set<String> = [], options: TestBench.Options = TestBench.Options(), _ body: (TestBench) async throws -> T
) async throws -> T {
    let bench = try await TestBench.open(address: address, actuator: actuator, features: features, options: options)
    return try await closing(bench, body)
}

func closing<T>(_ bench: TestBench, _ body: (TestBench) async throws -> T) async throws -> T {
    let value: T
    do { value = try await body(bench) } catch {
        try? bench.close()
        throw error
    }
    try bench.close()
    return value
}
