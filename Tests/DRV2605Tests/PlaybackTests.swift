import Actuators
import DRV2605
import DRV2605Model
import Testing

struct PlaybackTests {
    func calibratedBench(_ name: String) async throws -> TestBench {
        var bench = try TestBench(profile: name)
        try await bench.driver.bringUp(profile: bench.profile)
        _ = try await bench.driver.autoCalibrate()
        bench.chip.advance(milliseconds: 500)  // let the calibration vibration die away
        bench.chip.clearTrace()
        return bench
    }

    @Test func strongClickLoadsTheSequencerRunsAndClearsGo() async throws {
        var bench = try await calibratedBench("pmd-c10-100")
        let start = bench.chip.nowMicroseconds
        try await bench.driver.loadSequence([.effect(ROMEffectID(rawValue: 1))], library: .lra)
        // Register level: slot 1 = effect 1, slot 2 = end; library LRA.
        #expect(bench.chip.peek(.waveformSequence1) == 1 && bench.chip.peek(.waveformSequence2) == 0)
        try await bench.driver.go()
        #expect(bench.chip.peek(.go) == 1)
        _ = try await bench.driver.waitForGoClear(mode: .internalTrigger, timeoutMicroseconds: 1_000_000)
        #expect(bench.chip.peek(.go) == 0)
        bench.chip.advance(milliseconds: 60)
        // Acceleration level: a click reaches most of the rated amplitude, and the brake
        // ends it: below 10 % of the rated peak within 60 ms of the start.
        let rated = bench.profile.ratedPeakAccelerationG
        #expect(bench.chip.trace.peakG() > 0.6 * rated)
        let quiet = bench.chip.trace.lastTime(above: 0.1 * rated)!
        #expect(quiet - start < 60_000)
    }

    @Test func sequenceWaitsSeparateTheEffects() async throws {
        var bench = try await calibratedBench("pmd-c10-100")
        let start = bench.chip.nowMicroseconds
        try await bench.driver.play([.effect(ROMEffectID(rawValue: 1)), .wait(units: 20), .effect(ROMEffectID(rawValue: 1))], library: .lra)
        let rated = bench.profile.ratedPeakAccelerationG
        // Quiet in the middle of the 200 ms wait, strong again after it.
        #expect(bench.chip.trace.peakG(from: start + 100_000, to: start + 200_000) < 0.1 * rated)
        #expect(bench.chip.trace.peakG(from: start + 220_000, to: start + 300_000) > 0.6 * rated)
    }

    @Test func sequenceLongerThanEightSlotsIsRejected() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        await #expect(throws: DRV2605Error.invalidSequence("9 entries; the sequencer holds 8")) {
            try await bench.driver.loadSequence(Array(repeating: .effect(ROMEffectID(rawValue: 1)), count: 9), library: .lra)
        }
    }

    @Test func signedRTPFullScaleDrivesTheRatedAmplitude() async throws {
        var bench = try await calibratedBench("pmd-c10-100")
        try await bench.driver.startRealTimePlayback(unsigned: false)
        try await bench.driver.setRealTimeAmplitude(signed: 127)
        #expect(bench.chip.peek(.rtpInput) == 0x7F)
        #expect(ModeRegister(rawValue: bench.chip.peek(.mode)).mode == .realTimePlayback)
        bench.chip.advance(milliseconds: 200)
        let steady = bench.chip.trace.peakG(from: bench.chip.nowMicroseconds - 50_000)
        #expect(abs(steady - bench.profile.ratedPeakAccelerationG) < 0.15 * bench.profile.ratedPeakAccelerationG)
        // Closed loop tracks resonance: LRA_PERIOD reads the actuator's 175 Hz.
        #expect(abs(try await bench.driver.lraResonanceHz()! - 175) < 2)
    }

    @Test func unsignedRTPHalfScaleGivesAboutHalfTheAmplitude() async throws {
        var bench = try await calibratedBench("pmd-307-103")
        // Closed loop unidirectional: 0x00...0xFF is 0...full scale.
        try await bench.driver.update(Control2Register.self) { $0.bidirectionalInput = false }
        try await bench.driver.startRealTimePlayback(unsigned: true)
        try await bench.driver.setRealTimeAmplitude(unsigned: 0x80)
        #expect(Control3Register(rawValue: bench.chip.peek(.control3)).rtpUnsigned)
        bench.chip.advance(milliseconds: 400)
        // ERM amplitude goes with speed squared: half the speed, a quarter the g.
        let steady = bench.chip.trace.peakG(from: bench.chip.nowMicroseconds - 50_000)
        let rated = bench.profile.ratedPeakAccelerationG
        #expect(steady > 0.18 * rated && steady < 0.35 * rated)
    }

    @Test func stopAfterRTPReturnsToQuiet() async throws {
        var bench = try await calibratedBench("pmd-c10-100")
        try await bench.driver.startRealTimePlayback(unsigned: false)
        try await bench.driver.setRealTimeAmplitude(signed: 127)
        bench.chip.advance(milliseconds: 100)
        try await bench.driver.setRealTimeAmplitude(signed: 0)
        bench.chip.advance(milliseconds: 100)
        try await bench.driver.stopRealTimePlayback()
        #expect(bench.chip.trace.peakG(from: bench.chip.nowMicroseconds - 20_000) < 0.05)
    }
}
