import Bench
import Foundation
import Measurements

/// One measurement of one step against its limit.
public struct MeasuredResult: Sendable {
    public var limit: Limit
    /// Nil when it could not be measured (then `note` says why and the verdict is ERROR).
    public var value: Double?
    public var verdict: Verdict
    public var note: String?
}

/// What one step did in one attempt.
public struct StepResult: Sendable {
    public var index: Int
    public var kind: StepKind
    /// "measure ios.impact.heavy".
    public var label: String
    public var verdict: Verdict
    /// Why it is not PASS (or a procedure's last line).
    public var message: String?
    public var measurements: [MeasuredResult]
    /// Every figure the step measured, limited or not.
    public var figures: [BenchMeasurement]
    public var seconds: Double
    /// The play's acceleration and drive, for a plot (play and measure steps).
    public var trace: PlayTrace?
    /// The frequency response, for its plot (sweep steps).
    public var sweep: FrequencySweep? = nil
}

/// One attempt at a test: the first, a retry after an ERROR, or a repeat after a FAIL.
public struct Attempt: Sendable {
    public enum Reason: String, Sendable { case first, retryAfterError = "retry after ERROR", repeatAfterFail = "repeat after FAIL" }
    public var number: Int
    public var reason: Reason
    public var verdict: Verdict
    public var message: String?
    public var steps: [StepResult]
    public var seconds: Double
}

/// A test's outcome: the verdict of its last attempt, every attempt kept.
public struct TestResult: Sendable {
    public var suite: String
    public var file: String
    public var name: String
    public var device: String
    public var verdict: Verdict
    public var message: String?
    public var attempts: [Attempt]
    public var seconds: Double { attempts.reduce(0) { $0 + $1.seconds } }
}

/// What the health check found on a device before the run.
public struct DeviceHealth: Sendable {
    public var name: String
    public var address: String
    public var actuator: String
    public var serialNumber: String?
    public var firmwareVersion: String?
    public var protocolVersion: String?
    public var chip: String?
    public var supplyVolts: Double?
    /// Nil when healthy, else what failed.
    public var problem: String?
}

/// A whole run.
public struct RunRecord: Sendable {
    public var bench: BenchFile
    public var devices: [DeviceHealth]
    public var tests: [TestResult]
    /// Set when the run stopped early (the run's timeout, a failed health check, an
    /// interruption).
    public var aborted: String?
    /// Set when the run was interrupted (`RunInterruption`): "interrupted by SIGINT".
    public var interruption: String? = nil
    /// Why each device's share of the run stopped early, by device name (its health
    /// check, the run's timeout, an interruption); a device that ran its tests through
    /// is not in it. `aborted` is the first of them in the bench's order.
    public var deviceAborted: [String: String] = [:]
    /// When it started (its boards locked), on the wall clock.
    public var started = Date()
    public var seconds: Double

    /// The worst of the tests' verdicts (PASS for none; ERROR for an aborted run).
    public var verdict: Verdict {
        if aborted != nil { return .error }
        return tests.map(\.verdict).max() ?? .pass
    }

    public func count(_ v: Verdict) -> Int { tests.filter { $0.verdict == v }.count }

    /// The devices the run's tests ran on (or were meant to), in the bench's order.
    public var testedDevices: [String] {
        bench.devices.map(\.name).filter { name in tests.contains { $0.device == name } }
    }

    /// One device's share of the run as a record of its own (farm mode's per-device
    /// record): its health check, its tests, why it stopped early; the bench, the start
    /// and the run's wall time are the run's. The run's record is the union of these.
    public func record(of device: String) -> RunRecord {
        var r = self
        r.devices = devices.filter { $0.name == device }
        r.tests = tests.filter { $0.device == device }
        r.aborted = deviceAborted[device] ?? interruption
        r.deviceAborted = deviceAborted.filter { $0.key == device }
        return r
    }
}
