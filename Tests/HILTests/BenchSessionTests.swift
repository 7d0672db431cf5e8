import Bench
import Foundation
import HIL
import Measurements
import Testing

/// `BenchSession`, what `import HapbridgeTesting` stands on: the lock held for the
/// session's life, the health check on open, steps with limits run by the runner's own
/// code and recorded as `hapbridge run` records them.
@Suite("HIL bench session (HapbridgeTesting's fixture)")
struct BenchSessionTests {
    func options(_ dir: String) -> BenchSession.Options {
        var o = BenchSession.Options()
        o.lockDirectory = dir
        return o
    }

    @Test("Opening by address health-checks the device and holds its board's lock until close: a second open is refused with who holds it")
    func lockAndHealth() async throws {
        let dir = try temporaryDirectory()
        let session = try await BenchSession.open(address: "sim", actuator: "pmd-c10-100", features: ["sled"], options: options(dir))
        #expect(session.bench.name == "sim" && session.bench.features == ["sled"])
        let h = try #require(session.health.first)
        #expect(h.serialNumber == "SIMULATED" && h.chip == "DRV2605L" && h.problem == nil)
        #expect(FileManager.default.fileExists(atPath: "\(dir)/sim.lock"))
        do {
            _ = try await BenchSession.open(address: "sim", actuator: "pmd-c10-100", options: options(dir))
            Issue.record("a second session opened a locked bench")
        } catch {
            guard case .busy(let why) = error else { Issue.record("not busy: \(error)"); return }
            #expect(why.hasPrefix("dut (sim) is locked by ") && why.contains("(pid \(getpid()) on "), "\(why)")
        }
        session.close()
        let again = try await BenchSession.open(address: "sim", actuator: "pmd-c10-100", options: options(dir))
        again.close()
    }

    @Test("The steps TestBench's flash, unplug and replug run: on sim flash is SKIP with why; after unplug a step ERRORs as vanished; after replug it plays")
    func unplugReplug() async throws {
        let dir = try temporaryDirectory()
        let session = try await BenchSession.open(address: "sim", actuator: "pmd-c10-100", options: options(dir))
        defer { session.close() }
        let flash = await session.run(Step(action: .flash(image: nil), kind: .flash), test: "t", suite: "s")
        #expect(flash.verdict == .skipped && flash.message == "the simulated board has no bootloader to flash", "\(flash)")
        #expect(await session.run(Step(action: .unplug, kind: .unplug), test: "t", suite: "s").verdict == .pass)
        let gone = await session.run(Step(action: .play("ios.impact.light"), kind: .play), test: "t", suite: "s")
        #expect(gone.verdict == .error && gone.message?.contains("vanished mid-test") == true, "\(gone)")
        #expect(await session.run(Step(action: .replug, kind: .replug), test: "t", suite: "s").verdict == .pass)
        let back = await session.run(Step(action: .play("ios.impact.light"), kind: .play), test: "t", suite: "s")
        #expect(back.verdict == .pass, "\(back)")
    }

    @Test("A bench that fails its health check is not opened, says why, and leaves no lock")
    func unhealthy() async throws {
        let dir = try temporaryDirectory()
        try "bench: broken\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100, simulate: {fault: absent}}\n"
            .write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        do {
            _ = try await BenchSession.open(benchFile: "\(dir)/bench.yaml", options: options(dir))
            Issue.record("an unhealthy bench opened")
        } catch {
            guard case .unhealthy(let h) = error else { Issue.record("not unhealthy: \(error)"); return }
            #expect(h.name == "dut" && h.problem != nil && error.description.hasPrefix("health check failed on dut (sim): "))
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/broken.lock"))
        let bad = try? await BenchSession.open(benchFile: "\(dir)/no-such.yaml", options: options(dir))
        #expect(bad == nil)
    }

    @Test("Steps run with their limits as hapbridge run runs them, and the record holds each test's steps with verdicts")
    func stepsAndRecord() async throws {
        let dir = try temporaryDirectory()
        let session = try await BenchSession.open(address: "sim", actuator: "pmd-c10-100", options: options(dir))
        defer { session.close() }
        let measure = await session.run(
            Step(action: .measure("ios.impact.heavy"), kind: .measure, limits: [Limit(.rise, high: 20), Limit(.stop, high: 1)]), test: "response", suite: "s")
        #expect(measure.verdict == .fail && measure.message?.hasPrefix("stop time (to 10 %) = ") == true, "\(measure.message ?? "")")
        #expect(measure.measurements.map(\.verdict) == [.pass, .fail])
        var sweepOptions = FrequencySweep.Options()
        sweepOptions.fromHz = 140
        sweepOptions.toHz = 215
        let sweep = await session.run(
            Step(action: .sweep(sweepOptions), kind: .sweep, limits: [Limit(.f0, low: 171.5, high: 178.5, name: Figure.f0.measurementName(in: .sweep)), Limit(.bandwidth, high: 22)]),
            test: "sweep", suite: "s")
        #expect(sweep.verdict == .pass && sweep.sweep != nil, "\(sweep.message ?? "")")
        #expect(sweep.figures.map(\.unit) == [.hertz, .one, .hertz])
        session.skip(test: "accelerometer", suite: "s", reason: "needs lis3dh, which the bench sim lacks")
        let record = session.record
        #expect(record.tests.map(\.name) == ["response", "sweep", "accelerometer"])
        #expect(record.tests.map(\.verdict) == [.fail, .pass, .skipped] && record.verdict == .fail)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(RunReports.json(record).utf8)) as? [String: Any])
        let steps = ((json["tests"] as? [[String: Any]])?[1]["attempts"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]]
        let figures = (steps?.first?["figures"] as? [[String: Any]])?.map { "\($0["name"] ?? "") \($0["unit"] ?? "")" }
        #expect(figures == ["resonance f0 (sweep fit) Hz", "Q (loaded) 1", "−3 dB bandwidth Hz"])
    }
}
