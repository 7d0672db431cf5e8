import HIL
import Testing

/// `@Suite(.bench("bench.yaml"))`: opens the bench once for the suite (lock held,
/// health-checked), makes it `TestBench.current` for every test in it, and closes it
/// (writing the record, releasing the lock) when the suite ends. A bench that cannot be
/// opened fails the suite with the reason. On a test function, it opens a bench for
/// that test alone.
public struct BenchTrait: SuiteTrait, TestTrait, TestScoping {
    enum Source: Sendable {
        case file(String)
        case address(String, actuator: String, features: Set<String>)
    }

    let source: Source
    let options: TestBench.Options

    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let suite = test.displayName ?? test.name
        let bench: TestBench
        switch source {
        case .file(let path): bench = try await TestBench.open(path, options: options, suite: suite)
        case .address(let address, let actuator, let features):
            bench = try await TestBench.open(address: address, actuator: actuator, features: features, options: options, suite: suite)
        }
        try await TestBench.$current.withValue(bench) {
            try await closing(bench) { _ in try await function() }
        }
    }
}

extension Trait where Self == BenchTrait {
    /// The bench a bench file describes (YAML, `Examples/hil/bench.schema.json`).
    public static func bench(_ benchFile: String, options: TestBench.Options = TestBench.Options()) -> Self {
        BenchTrait(source: .file(benchFile), options: options)
    }

    /// A bench of one device by address (`sim`, `usb:SERIAL`, `usb:1-2`, `ftdi`) with
    /// `actuator` mounted, offering `features`.
    public static func bench(address: String, actuator: String, features: Set<String> = [], options: TestBench.Options = TestBench.Options()) -> Self {
        BenchTrait(source: .address(address, actuator: actuator, features: features), options: options)
    }
}

/// `@Test(.requires("lis3dh"))`: skips (cancels) the test, with the reason, when the
/// bench it runs on (`TestBench.current`) lacks a feature; fails it when no bench is open.
public struct RequiresTrait: TestTrait, SuiteTrait, TestScoping {
    let features: [String]

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard let bench = TestBench.current else {
            Issue.record("\(test.name) requires \(features.joined(separator: ", ")) of a bench, but no bench is open (add .bench(…) to its suite)")
            return
        }
        let missing = features.filter { !bench.has($0) }
        if !missing.isEmpty { try bench.skip(lacking: missing, sourceLocation: test.sourceLocation) }
        try await function()
    }
}

extension Trait where Self == RequiresTrait {
    /// Runs the test only on a bench with every one of `features`; otherwise it is
    /// skipped with the reason.
    public static func requires(_ features: String...) -> Self { RequiresTrait(features: features) }
}
