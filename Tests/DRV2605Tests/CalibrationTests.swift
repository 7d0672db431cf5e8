import Actuators
import DRV2605
import DRV2605Model
import Testing

struct CalibrationTests {
    @Test func lraAutoCalibrationPassesWithResultsFromTheActuator() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        let start = bench.chip.nowMicroseconds
        let result = try await bench.driver.autoCalibrate()
        // It takes at least AUTO_CAL_TIME (500 ms in this profile).
        #expect(bench.chip.nowMicroseconds - start >= 500_000)
        // Register level.
        #expect(result.passed)
        #expect(!StatusRegister(rawValue: bench.chip.peek(.status)).diagnosticFailed)
        #expect(bench.chip.peek(.autoCalibrationBackEMF) == result.backEMFCode)
        #expect(ModeRegister(rawValue: bench.chip.peek(.mode)).mode == .internalTrigger)
        // Decoded: compensation = (R + R_out) / R = 26.5 / 25 = 1.06 -> code 0.06 x 255 = 15.3 -> 15
        #expect(result.compensationCode == 15)
        // Back-EMF equals the LRA's steady back-EMF at rated drive, within code rounding.
        guard case .lra(let lra)? = Actuator(profile: bench.profile) as Actuator? else { Issue.record("not an LRA"); return }
        let expected = lra.steadyBackEMFAmplitude(squareVolts: DRV2605Formulas.lraRatedVoltage(code: 0x53, frequencyHz: 175.11, sampleTimeSeconds: 300e-6))
        #expect(abs(result.backEMFVolts - expected) < 0.05 * expected)
        #expect(abs(result.resonanceHz! - 175) < 2)
        // Acceleration level: the actuator vibrated at about its rated amplitude while calibrating.
        let peak = bench.chip.trace.peakG(from: start + 300_000, to: start + 500_000)
        #expect(abs(peak - bench.profile.ratedPeakAccelerationG) < 0.15 * bench.profile.ratedPeakAccelerationG)
    }

    @Test func ermAutoCalibrationChoosesAGainThatKeepsTheCodeInRange() async throws {
        var bench = try TestBench(profile: "pmd-307-103")
        try await bench.driver.bringUp(profile: bench.profile)
        let result = try await bench.driver.autoCalibrate()
        #expect(result.passed && !result.isLRA)
        // ERM back-EMF at rated speed is the rated voltage here (Ke = V / w): 3.0 V
        // at gain 0.255x -> 3.0 x 0.255 / 1.22 x 255 = 159.9 -> 160
        #expect(result.backEMFGainCode == 0)
        #expect(abs(Int(result.backEMFCode) - 160) <= 1)
        #expect(result.resonanceHz == nil)
    }

    @Test func storedCalibrationIsWrittenBackAfterAReset() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        let result = try await bench.driver.autoCalibrate()
        try await bench.driver.reset()
        #expect(bench.chip.peek(.autoCalibrationBackEMF) == 0x6C)  // back to reset
        try await bench.driver.setStandby(false)
        try await bench.driver.configure(for: bench.profile)
        try await bench.driver.restore(result)
        #expect(bench.chip.peek(.autoCalibrationCompensation) == result.compensationCode)
        #expect(bench.chip.peek(.autoCalibrationBackEMF) == result.backEMFCode)
        #expect(bench.chip.peek(.feedbackControl) == result.feedbackControl)
        // Acceleration level: restored, full-scale RTP reaches the rated amplitude again.
        bench.chip.clearTrace()
        try await bench.driver.startRealTimePlayback(unsigned: false)
        try await bench.driver.setRealTimeAmplitude(signed: 127)
        bench.chip.advance(milliseconds: 200)
        let steady = bench.chip.trace.peakG(from: bench.chip.nowMicroseconds - 50_000)
        #expect(abs(steady - bench.profile.ratedPeakAccelerationG) < 0.15 * bench.profile.ratedPeakAccelerationG)
    }

    @Test func autoCalibrationFailsWithNoActuator() async throws {
        var bench = try TestBench(profile: "pmd-c10-100", load: .open)
        try await bench.driver.bringUp(profile: bench.profile)
        await #expect(throws: DRV2605Error.self) { try await bench.driver.autoCalibrate() }
        #expect(StatusRegister(rawValue: bench.chip.peek(.status)).diagnosticFailed)
        #expect(bench.chip.trace.peakG() == 0)
    }

    @Test func autoCalibrationFailsWhenTheProfileSaysLRAButAnERMIsWired() async throws {
        let erm = try TestBench.profile("pmd-307-103")
        var bench = try TestBench(profile: "pmd-c10-100", load: .actuator(Actuator(profile: erm)))
        try await bench.driver.bringUp(profile: bench.profile)
        do {
            _ = try await bench.driver.autoCalibrate()
            Issue.record("calibration should fail")
        } catch {
            guard case .autoCalibrationFailed(let r) = error else { Issue.record("wrong error \(error)"); return }
            #expect(!r.passed)
        }
    }

    @Test func restoredLoopWithoutCalibrationMissesTheTarget() async throws {
        // Why calibration matters: with reset values (A_CAL_BEMF 0x6C at 15x = 34 mV)
        // the loop thinks full scale is a tiny back-EMF and holds the LRA far below rated.
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        try await bench.driver.startRealTimePlayback(unsigned: false)
        try await bench.driver.setRealTimeAmplitude(signed: 127)
        bench.chip.advance(milliseconds: 200)
        #expect(bench.chip.trace.peakG(from: bench.chip.nowMicroseconds - 50_000) < 0.5 * bench.profile.ratedPeakAccelerationG)
    }
}
