import HapbridgeTesting
import Testing

/// HIL tests of the C10-100 on the bench in bench-sim.yaml. `.bench(…)` opens it once for
/// the suite: its board's lock held until the suite ends (a bench on the same board
/// elsewhere, as `scopedBench` below, waits for it), every device health-checked
/// first (a bench that fails it fails the suite with the reason). Each test reaches it
/// as `TestBench.current`; steps run one at a time, whatever runs in parallel.
@Suite("C10-100 on the bench", .bench(benchFile))
struct ActuatorTests {
    var bench: TestBench {
        get throws { try #require(TestBench.current, "the .bench trait opens it") }
    }

    @Test("Bring-up: the health check found the DRV2605L at 5 V; diagnostics pass with f0 from LRA_PERIOD at 175 ± 5 Hz")
    func bringUp() async throws {
        let bench = try bench
        let dut = try #require(bench.health.first)
        #expect(dut.chip == "DRV2605L" && dut.problem == nil)
        #expect(abs((dut.supplyVolts ?? 0) - 5) < 0.1)
        let r = try await bench.diagnose(limits: [Limit(.f0, low: 170, high: 180)])
        #expect(r.passed, "\(r)")
    }

    @Test("Auto-calibration passes 5 runs of 5")
    func calibration() async throws {
        let r = try await bench.calibrate(runs: 5, limits: [Limit(.passRate, low: 100)])
        #expect(r.passed, "\(r)")
    }

    @Test("A heavy impact: rise within 20 ms, stop within 60 ms, peak 0.3…1.5 g")
    func responseTimes() async throws {
        let r = try await bench.measure(
            "ios.impact.heavy",
            limits: [Limit(.rise, high: 20, marginal: 2), Limit(.stop, high: 60), Limit(.peak, low: 0.3, high: 1.5)])
        #expect(r.passed, "\(r)")
        // Every figure comes with its unit, limited or not.
        let rise = try #require(r[.rise])
        #expect(rise.unit == .milliseconds && rise.value > 5)
        #expect(r[.lag]?.unit == .milliseconds)
    }

    @Test("The open-loop sweep finds f0 within 2 % of the profile's and Q between 8 and 14")
    func sweep() async throws {
        let bench = try bench
        let f0 = try #require(bench.session.profile()?.lra?.resonantFrequencyHz)
        let r = try await bench.sweep(
            from: 140, to: 215, limits: [Limit(.f0, low: f0 * 0.98, high: f0 * 1.02), Limit(.q, low: 8, high: 14)])
        #expect(r.passed, "\(r)")
        #expect((r.sweep?.response.points.count ?? 0) > 10)
    }

    @Test("A limit the part cannot meet is a FAIL naming the measured value")
    func tooTight() async throws {
        let r = try await bench.measure("ios.impact.heavy", limits: [Limit(.rise, high: 1)])
        #expect(r.verdict == .fail)
        #expect(r.message?.contains("rise time 10→90 % = ") == true, "\(r)")
    }

    @Test("An accelerometer test runs only on a bench with one", .requires("lis3dh"))
    func needsAccelerometer() async throws {
        let r = try await bench.measure("ios.impact.light")
        #expect(r.passed, "\(r)")
    }

    @Test(
        "Swift Testing's own condition, read from the bench file before it is opened",
        .enabled(if: TestBench.features(of: benchFile).contains("sled"), "the bench has no sled"))
    func onASled() async throws {
        let r = try await bench.play("ios.notification.success")
        #expect(r.verdict == .pass, "\(r)")
    }
}

/// The scoped form: a bench for one block, by address, closed after it.
@Test("withBench opens one device by address for a block")
func scopedBench() async throws {
    try await withBench(address: "sim", actuator: "pmd-c10-100") { bench in
        let r = try await bench.measure("ios.impact.light", limits: [Limit(.peak, low: 0.05)])
        #expect(r.passed, "\(r)")
    }
}
