import Foundation
import Testing

/// Examples/SwiftPackage is a user's own package: it depends on this checkout by path
/// and needs one product, `import Hapbridge`, to open a device by address, build a
/// pattern and play it, and to use the feedback generators. Built as a user builds it
/// (`swift build`, then its executable run), with SwiftPM's shared package cache (the
/// same copies of swift-argument-parser and swift-log the root resolved) and a scratch
/// directory in the temporary directory. Slow: one full build of the library's graph.
///
/// Examples/HILPackage (ExampleHILPackageTests.swift) builds into the same scratch
/// directory, one test after the other: its build reuses this one's modules and adds
/// only HIL, Measurements, CLibYAML and HapbridgeTesting (about 25 s on a 2-core machine)
/// rather than a second cold build of the graph. Whichever runs first builds the graph.
@Suite(.serialized)
struct ExamplePackageTests {
    static let example = Hapbridge.path("Examples/SwiftPackage")
    /// A cold debug build of the library's graph on a loaded 2-core machine.
    static let buildBoundSeconds: Double = 1800
    static let runBoundSeconds: Double = 120

    @Test("The example package builds against the checkout with one product and plays on sim: the pattern with 0 late, the generators' haptics sent")
    func examplePackageBuildsAndPlays() throws {
        let scratch = try ExampleScratch.shared()
        let build = try Self.run(
            ["swift", "build", "--package-path", Self.example, "--scratch-path", scratch.path, "--product", "HapbridgeExample"],
            bound: Self.buildBoundSeconds, in: scratch)
        #expect(build.status == 0, "swift build of Examples/SwiftPackage: \(build.output)")
        guard build.status == 0 else { return }
        let binary = try Self.run(["swift", "build", "--package-path", Self.example, "--scratch-path", scratch.path, "--show-bin-path"], bound: 120, in: scratch)
        let executable = binary.output.split(separator: "\n").last.map { String($0) + "/HapbridgeExample" } ?? ""
        // Run from the example's directory, as `swift run` would: the shipped actuator
        // profiles are found in the checkout above it.
        let run = try Self.run([executable, "sim"], bound: Self.runBoundSeconds, in: scratch, directory: Self.example)
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("device: simulated") }, "\(run.output)")
        let played = lines.first { $0.hasPrefix("played: ") } ?? ""
        #expect(played.contains(" 0 late, 0 underruns"), "\(run.output)")
        #expect(!played.hasPrefix("played: 0 commands"), "\(run.output)")
        #expect(lines.contains("stopped: no, played to the end"), "\(run.output)")
        let feedback = lines.first { $0.hasPrefix("feedback: ") } ?? ""
        #expect(!feedback.isEmpty && !feedback.hasPrefix("feedback: 0 commands"), "\(run.output)")
    }

    /// The scratch directory the example packages share, made on first use and removed
    /// when the test process exits.
    enum ExampleScratch {
        private static let made: Result<URL, any Error> = {
            do {
                let url = try Hapbridge.scratchDirectory()
                atexit { if case .success(let url) = ExampleScratch.made { try? FileManager.default.removeItem(at: url) } }
                return .success(url)
            } catch { return .failure(error) }
        }()

        static func shared() throws -> URL { try made.get() }
    }

    struct Finished {
        var status: Int32
        var output: String
    }

    /// Runs `arguments` (found on PATH by /usr/bin/env), standard output and error
    /// together in a file, killed past `bound` seconds.
    static func run(_ arguments: [String], bound: Double, in scratch: URL, directory: String? = nil) throws -> Finished {
        let log = scratch.appendingPathComponent("output-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw Hapbridge.SetupError("cannot create \(log.path)") }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + bound) == .timedOut {
            process.terminate()
            done.wait()
            throw Hapbridge.SetupError("still running after \(Int(bound)) s: \(arguments.joined(separator: " "))")
        }
        let output = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        return Finished(status: process.terminationReason == .uncaughtSignal ? -1 : process.terminationStatus, output: output)
    }
}
