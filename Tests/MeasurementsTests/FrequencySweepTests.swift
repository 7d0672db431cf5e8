import Actuators
import Bench
import DRV2605
import Measurements
import Testing

/// `FrequencySweep` on the simulated board's DRV2605L and LRA, in virtual time, against
/// what the LRA model says: f0 is the profile's, and Q is the loaded Q
/// m ω0 / (c + Bl²/R) — the voltage-driven coil's back-EMF damps the resonator on top
/// of its mechanical damping (`LRAPhysics`).
struct FrequencySweepTests {
    static func loadedQ(_ profile: ActuatorProfile) -> Double {
        let lra = LRAPhysics(profile: profile)
        return lra.movingMassKg * lra.angularResonance / (lra.dampingNsPerM + lra.forceFactor * lra.forceFactor / lra.coilResistanceOhms)
    }

    @Test("Sweep of the simulated C10-100 and VG0832012: f0 within 1 % of the profile's, Q within 3 % of the model's loaded Q, each frequency a code's own")
    func sweepMatchesTheModel() async throws {
        for name in ["pmd-c10-100", "vybronics-vg0832012"] {
            let p = try profile(name)
            let bench = try await simulatedBench(p)
            var heard: [Double] = []
            let sweep = try await FrequencySweep.run(on: bench, profile: p) { _, _, f in heard.append(f) }
            await bench.close()
            let fit = try sweep.response.resonance.get()
            let f0 = try #require(p.lra?.resonantFrequencyHz)
            #expect(abs(fit.frequencyHz - f0) < 0.01 * f0, "\(name): f0 \(fit.frequencyHz) Hz, profile \(f0) Hz")
            let q = Self.loadedQ(p)
            #expect(abs(fit.qualityFactor - q) < 0.03 * q, "\(name): Q \(fit.qualityFactor), model's loaded Q \(q)")
            #expect(fit.lowerHalfPowerHz != nil && fit.upperHalfPowerHz != nil && fit.residualDB < 0.5)
            #expect(sweep.accelerationSource == "simulated sled")
            #expect(heard == sweep.response.points.map(\.frequencyHz))
            #expect(heard.allSatisfy { f in (1...127).contains { abs(FrequencySweep.frequency(code: UInt8($0)) - f) < 1e-9 } })
            // The default range: 0.7 × to 1.4 × the profile's resonance.
            #expect(heard.first.map { $0 >= 0.7 * f0 * 0.97 } == true && heard.last.map { $0 <= 1.4 * f0 * 1.03 } == true)
        }
    }

    @Test("Each frequency is a drive of its own, shorter than the board's 5 s limit: a 60-point sweep (15 s) is not stopped by MAX_DRIVE")
    func longSweepIsNotStoppedByTheDriveLimit() async throws {
        let p = try profile()
        let bench = try await simulatedBench(p)
        var options = FrequencySweep.Options()
        options.fromHz = 100
        options.toHz = 300
        let sweep = try await FrequencySweep.run(on: bench, profile: p, options: options)
        await bench.close()
        #expect(sweep.response.points.count > 60)
        #expect(sweep.response.points.allSatisfy { $0.accelerationG > 0.01 }, "\(sweep.response.points.map(\.accelerationG))")
    }

    @Test("An ERM, a level outside 0...1 and a range OL_LRA_PERIOD cannot reach are refused before anything is driven")
    func refusals() async throws {
        let bench = try await simulatedBench(try profile())
        let erm = try profile("pmd-307-103")
        await #expect(throws: FrequencySweep.SweepError.notAnLRA(erm.displayName)) { try await FrequencySweep.run(on: bench, profile: erm) }
        var options = FrequencySweep.Options()
        options.level = 1.5
        await #expect(throws: FrequencySweep.SweepError.self) { try await FrequencySweep.run(on: bench, profile: try profile(), options: options) }
        #expect(throws: FrequencySweep.SweepError.self) { try FrequencySweep.codes(fromHz: 20, toHz: 100) }
        #expect(throws: FrequencySweep.SweepError.self) { try FrequencySweep.codes(fromHz: 200, toHz: 150) }
        // Only codes whose frequency lies in the range: 172.1, 175.1 and 178.2 Hz.
        #expect(try FrequencySweep.codes(fromHz: 170, toHz: 180) == [59, 58, 57])
        #expect(throws: FrequencySweep.SweepError.self) { try FrequencySweep.codes(fromHz: 176, toHz: 177) }
        await bench.close()
    }

    @Test("After a sweep the chip is in standby with RTP_INPUT 0 (the drive ends with the sweep)")
    func leavesTheChipStopped() async throws {
        let p = try profile()
        let bench = try await simulatedBench(p)
        var options = FrequencySweep.Options()
        options.fromHz = 170
        options.toHz = 180
        _ = try await FrequencySweep.run(on: bench, profile: p, options: options)
        let driver = DRV2605Driver(bus: bench.bus)
        let mode = try await driver.read(ModeRegister.self)
        #expect(mode.standby)
        #expect(try await driver.readRaw(.rtpInput) == 0)
        await bench.close()
    }
}
