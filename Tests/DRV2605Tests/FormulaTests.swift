import DRV2605
import Testing

/// Every datasheet equation against numbers worked by hand (working in the comments).
/// Two results also match values engineers posted from real parts on TI's E2E forum.
struct FormulaTests {
    @Test func lraRatedVoltageFor2VrmsAt175HzIs0x53() {
        // sqrt(1 - (4 x 300 us + 300 us) x 175 Hz) = sqrt(1 - 0.2625) = sqrt(0.7375) = 0.858778
        // 2.0 V x 0.858778 / 20.58 mV = 1.717556 / 0.02058 = 83.457 -> 83 = 0x53
        // (E2E thread 342477, C10-100 at 2 Vrms / 175 Hz, used 0x53.)
        let code = DRV2605Formulas.lraRatedVoltageCode(rmsVolts: 2.0, frequencyHz: 175, sampleTimeSeconds: 300e-6)
        #expect(code == 0x53)
        // Back: 83 x 20.58 mV / 0.858778 = 1.70814 / 0.858778 = 1.98904 V
        #expect(abs(DRV2605Formulas.lraRatedVoltage(code: 83, frequencyHz: 175, sampleTimeSeconds: 300e-6) - 1.98904) < 1e-4)
    }

    @Test func lraRatedVoltageUsesTheSampleTime() {
        // t_sample 150 us: sqrt(1 - (600 + 300) us x 175) = sqrt(0.8425) = 0.917878
        // 2.0 x 0.917878 / 0.02058 = 89.20 -> 89
        #expect(DRV2605Formulas.lraRatedVoltageCode(rmsVolts: 2.0, frequencyHz: 175, sampleTimeSeconds: 150e-6) == 89)
    }

    @Test func ermRatedVoltageIs21_18mVPerCode() {
        // 2.7 V / 21.18 mV = 127.48 -> 127 = 0x7F (E2E thread 408591 used 0x7F for a 2.7 V ERM)
        #expect(DRV2605Formulas.ermRatedVoltageCode(averageVolts: 2.7) == 0x7F)
        // 3.0 V / 21.18 mV = 141.64 -> 142 = 0x8E
        #expect(DRV2605Formulas.ermRatedVoltageCode(averageVolts: 3.0) == 0x8E)
        // 142 x 21.18 mV = 3.00756 V
        #expect(abs(DRV2605Formulas.ermRatedVoltage(code: 142) - 3.00756) < 1e-9)
    }

    @Test func closedLoopClampIs21_22mVPerCodePeak() {
        // 3.7 V / 21.22 mV = 174.36 -> 174; 3.0 V / 21.22 mV = 141.38 -> 141
        #expect(DRV2605Formulas.closedLoopClampCode(peakVolts: 3.7) == 174)
        #expect(DRV2605Formulas.closedLoopClampCode(peakVolts: 3.0) == 141)
        // 0x8C = 140 x 21.22 mV = 2.9708 V (the L part's reset clamp)
        #expect(abs(DRV2605Formulas.closedLoopClampVoltage(code: 0x8C) - 2.9708) < 1e-9)
    }

    @Test func lraOpenLoopClampIncludesTheDeadTimeFactor() {
        // sqrt(1 - 800 us x 175 Hz) = sqrt(0.86) = 0.927362; 21.32 mV x 0.927362 = 19.7714 mV
        // 2.0 V / 19.7714 mV = 101.16 -> 101
        #expect(DRV2605Formulas.lraOpenLoopClampCode(rmsVolts: 2.0, frequencyHz: 175) == 101)
        // 101 x 19.7714 mV = 1.99691 V rms
        #expect(abs(DRV2605Formulas.lraOpenLoopVoltage(code: 101, frequencyHz: 175) - 1.99691) < 1e-4)
    }

    @Test func ermOpenLoopClampIncludesTheDriveDutyFactor() {
        // DRIVE_TIME 19 (ERM): 1 ms + 0.2 ms x 19 = 4.8 ms; IDISS 75 us, BLANKING 75 us
        // duty = (4.8 - 0.3) / (4.8 + 0.075 + 0.075) = 4.5 / 4.95 = 0.909091
        // 21.64 mV x 0.909091 = 19.6727 mV; 3.7 V / 19.6727 mV = 188.08 -> 188
        let code = DRV2605Formulas.ermOpenLoopClampCode(averageVolts: 3.7, driveTimeSeconds: 4.8e-3, idissSeconds: 75e-6, blankingSeconds: 75e-6)
        #expect(code == 188)
    }

    @Test func driveTimeIsHalfThePeriodIn100usStepsFrom0_5ms() {
        // 175 Hz: T/2 = 2.857 ms; (2.857 - 0.5) / 0.1 = 23.57 -> 24
        #expect(DRV2605Formulas.lraDriveTimeCode(frequencyHz: 175) == 24)
        // 235 Hz: T/2 = 2.128 ms; (2.128 - 0.5) / 0.1 = 16.28 -> 16
        #expect(DRV2605Formulas.lraDriveTimeCode(frequencyHz: 235) == 16)
        // Reset value 0x93 -> DRIVE_TIME 19: 0.5 + 1.9 = 2.4 ms half period = 208.3 Hz
        #expect(abs(0.5 / DRV2605Formulas.lraDriveTimeSeconds(code: 19) - 208.333) < 1e-3)
    }

    @Test func lraPeriodIs98_46usPerCode() {
        // 175 Hz: 5.714286 ms / 98.46 us = 58.04 -> 58; 58 x 98.46 us = 5.71068 ms -> 175.11 Hz
        #expect(DRV2605Formulas.lraPeriodCode(frequencyHz: 175) == 58)
        #expect(abs(DRV2605Formulas.resonanceHz(lraPeriodCode: 58)! - 175.110) < 1e-3)
        #expect(DRV2605Formulas.resonanceHz(lraPeriodCode: 0) == nil)
        // OL_LRA_PERIOD is 7 bits: 40 Hz would need 254 codes, so it saturates at 127
        #expect(DRV2605Formulas.openLoopPeriodCode(frequencyHz: 40) == 127)
    }

    @Test func supplyVoltageIs5_6VFullScale() {
        // 0xE7 = 231 x 5.6 / 255 = 5.07294 V (E2E 417442 read 0xE7 from a 5 V part)
        #expect(abs(DRV2605Formulas.supplyVolts(code: 0xE7) - 5.07294) < 1e-5)
        // 5.0 V x 255 / 5.6 = 227.68 -> 228
        #expect(DRV2605Formulas.supplyCode(volts: 5.0) == 228)
    }

    @Test func calibrationResultsDecodeAsInTheRegisterMap() {
        // A_CAL_COMP reset 0x0C: 1 + 12/255 = 1.047059
        #expect(abs(DRV2605Formulas.compensationCoefficient(code: 0x0C) - 1.047059) < 1e-6)
        // A_CAL_BEMF reset 0x6C = 108, LRA BEMF_GAIN 2 (15x): 108/255 x 1.22 V / 15 = 0.0344471 V
        #expect(abs(DRV2605Formulas.backEMFVolts(code: 0x6C, gainCode: 2, lra: true) - 0.0344471) < 1e-6)
        // same code, ERM gain 2 (1.365x): 0.4235294 x 1.22 = 0.5167059; / 1.365 = 0.378539 V
        #expect(abs(DRV2605Formulas.backEMFVolts(code: 0x6C, gainCode: 2, lra: false) - 0.378539) < 1e-6)
    }
}
