import Foundation
import Haptics
import Testing
@testable import HapticCompilation

/// `CompilationLimits`: a compiler step's work is bounded, and what would pass the
/// bound is refused, naming the limit, before a player is made.
@Suite struct WorkLimitTests {
    /// A timeline of transients only, at these times (s).
    func timeline(transientsAt times: [Double]) throws -> Timeline {
        try Renderer.render(HapticPattern(events: times.map { .transient(at: $0, intensity: 1, sharpness: 0.5) }))
    }

    @Test("eight transients in one control step pass; a ninth is refused, naming the limit and where")
    func transientsPerStepIsALimit() throws {
        let eight = try timeline(transientsAt: (0..<8).map { 0.5 + Double($0) * 0.0001 })
        try DriveCompiler.checkWork(for: eight, stepMicroseconds: 1000)
        let nine = try timeline(transientsAt: (0..<9).map { 0.5 + Double($0) * 0.0001 })
        let error = #expect(throws: CompilationError.self) { try DriveCompiler.checkWork(for: nine, stepMicroseconds: 1000) }
        guard case .tooManyTransientsPerStep(let found, let limit, let at, _, _) = error else {
            Issue.record("expected tooManyTransientsPerStep, got \(String(describing: error))")
            return
        }
        #expect(found == 9 && limit == 8 && abs(at - 0.5) < 1e-9)
        #expect(error?.description.contains("transientsPerStep") == true)
    }

    @Test("the window is one step wide: transients a step apart never share one")
    func transientsAStepApartPass() throws {
        // 100 transients exactly 1 ms apart: one per window [t, t + 1 ms).
        try DriveCompiler.checkWork(for: try timeline(transientsAt: (0..<100).map { Double($0) / 1000 }), stepMicroseconds: 1000)
    }

    @Test("a faster playback rate packs more of the timeline into a step")
    func playbackRateScalesTheWindow() throws {
        // Every 0.25 ms: 4 in a 1 ms step at rate 1; at rate 2.5 a step covers 2.5 ms: 10.
        let t = try timeline(transientsAt: (0..<40).map { Double($0) * 0.00025 })
        try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, playbackRate: 2)
        #expect(throws: CompilationError.tooManyTransientsPerStep(
            found: 10, limit: 8, atSeconds: 0, stepMicroseconds: 1000, playbackRate: 2.5)
        ) { try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, playbackRate: 2.5) }
        // A rate that is no number counts as the whole timeline in one step.
        #expect(throws: CompilationError.self) { try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, playbackRate: .nan) }
    }

    @Test("a short loop repeats its transients within a step: counted across the wraps")
    func loopsAreCountedAcrossWraps() throws {
        // One transient at 0 and one at 0.05 ms, looping over the first 0.1 ms: ten loops
        // in a 1 ms step, 20 transients.
        let t = try timeline(transientsAt: [0, 0.00005, 0.5])
        #expect(throws: CompilationError.tooManyTransientsPerStep(
            found: 20, limit: 8, atSeconds: 0, stepMicroseconds: 1000, playbackRate: 1)
        ) { try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, loopLength: 0.0001) }
        // A 0.3 ms loop: 3 whole loops (6) and a 0.1 ms remainder that can hold both
        // (0 and 0.05 ms): 8, the limit, allowed.
        try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, loopLength: 0.0003)
        // A loop of a second with the transients 0.05 ms apart: 2 in any step.
        try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, loopLength: 1)
        // An absurd loop length is no loop; a vanishing one is refused, never a trap.
        try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, loopLength: -1)
        #expect(throws: CompilationError.self) { try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, loopLength: 1e-300) }
    }

    @Test("players mixed into one step are bounded by contributionsPerStep")
    func contributionsAreALimit() throws {
        try CompilationLimits.standard.check(contributions: 32)
        #expect(throws: CompilationError.tooManyContributions(found: 33, limit: 32)) {
            try CompilationLimits.standard.check(contributions: 33)
        }
        #expect(CompilationError.tooManyContributions(found: 33, limit: 32).description.contains("contributionsPerStep"))
    }

    @Test("nothing shipped comes near the limit: every example and system haptic passes, looping whole")
    func everythingShippedPasses() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples")
        var patterns = SystemHapticLibrary.all.map(\.pattern)
        for directory in [examples, examples.appendingPathComponent("compilation")] {
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".ahap") {
                patterns.append(try AHAPReader.read(try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)).pattern)
            }
        }
        #expect(patterns.count > 25)
        for pattern in patterns {
            let t = try Renderer.render(pattern)
            try DriveCompiler.checkWork(for: t, stepMicroseconds: 1000, loopLength: t.duration)
        }
    }
}
