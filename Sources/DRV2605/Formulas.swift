/// The datasheet's conversions between register codes and physical values
/// (TI SLOS854 "Rated voltage programming", "Overdrive voltage-clamp programming",
/// register descriptions). Each function names its equation; the tests work the
/// same numbers by hand.
public enum DRV2605Formulas {
    // MARK: constants from the datasheet (SLOS854C)
    /// ERM closed loop: V_avg = 21.18 mV x RATED_VOLTAGE.
    public static let ermRatedVoltsPerCode = 21.18e-3
    /// LRA closed loop: V_rms = 20.58 mV x RATED_VOLTAGE / sqrt(1 - (4 t_sample + 300 us) f).
    public static let lraRatedVoltsPerCode = 20.58e-3
    public static let lraRatedFixedTime = 300e-6
    /// Closed loop (ERM and LRA) overdrive clamp, peak: V = 21.22 mV x OD_CLAMP.
    public static let closedLoopClampVoltsPerCode = 21.22e-3
    /// LRA open loop: V_rms = 21.32 mV x OD_CLAMP x sqrt(1 - 800 us x f).
    public static let lraOpenLoopVoltsPerCode = 21.32e-3
    public static let lraOpenLoopDeadTime = 800e-6
    /// ERM open loop: V_avg = 21.64 mV x OD_CLAMP x (t_drive - 300 us) / (t_drive + t_idiss + t_blank).
    public static let ermOpenLoopVoltsPerCode = 21.64e-3
    public static let ermOpenLoopDriveLoss = 300e-6
    /// LRA_PERIOD and OL_LRA_PERIOD: one code = 98.46 us.
    public static let lraPeriodSecondsPerCode = 98.46e-6
    /// VBAT: V = code x 5.6 V / 255.
    public static let supplyFullScaleVolts = 5.6
    /// A_CAL_BEMF: V_bemf = code / 255 x 1.22 V / BEMF_GAIN.
    public static let backEMFFullScaleVolts = 1.22
    /// DRIVE_TIME for an LRA: half-period = 0.5 ms + 0.1 ms x code.
    public static let lraDriveTimeBase = 0.5e-3
    public static let lraDriveTimeStep = 0.1e-3
    /// DRIVE_TIME for an ERM: back-EMF sample period = 1 ms + 0.2 ms x code.
    public static let ermDriveTimeBase = 1.0e-3
    public static let ermDriveTimeStep = 0.2e-3
    static let codeMax = 255.0
    static let driveTimeMax = Double(Control1Register.driveTimeField.maxValue)
    static let olPeriodMax = Double(OpenLoopLRAPeriodRegister.periodField.maxValue)

    // MARK: rated voltage

    public static func ermRatedVoltage(code: UInt8) -> Double { Double(code) * ermRatedVoltsPerCode }

    public static func ermRatedVoltageCode(averageVolts: Double) -> UInt8 {
        byte(averageVolts / ermRatedVoltsPerCode)
    }

    /// The factor sqrt(1 - (4 t_sample + 300 us) f) the chip loses to back-EMF sampling.
    public static func lraSamplingFactor(frequencyHz: Double, sampleTimeSeconds: Double) -> Double {
        (1 - (4 * sampleTimeSeconds + lraRatedFixedTime) * frequencyHz).squareRoot()
    }

    public static func lraRatedVoltage(code: UInt8, frequencyHz: Double, sampleTimeSeconds: Double) -> Double {
        Double(code) * lraRatedVoltsPerCode / lraSamplingFactor(frequencyHz: frequencyHz, sampleTimeSeconds: sampleTimeSeconds)
    }

    public static func lraRatedVoltageCode(rmsVolts: Double, frequencyHz: Double, sampleTimeSeconds: Double) -> UInt8 {
        byte(rmsVolts * lraSamplingFactor(frequencyHz: frequencyHz, sampleTimeSeconds: sampleTimeSeconds) / lraRatedVoltsPerCode)
    }

    // MARK: overdrive clamp

    public static func closedLoopClampVoltage(code: UInt8) -> Double { Double(code) * closedLoopClampVoltsPerCode }

    public static func closedLoopClampCode(peakVolts: Double) -> UInt8 { byte(peakVolts / closedLoopClampVoltsPerCode) }

    public static func lraOpenLoopVoltage(code: UInt8, frequencyHz: Double) -> Double {
        Double(code) * lraOpenLoopVoltsPerCode * (1 - lraOpenLoopDeadTime * frequencyHz).squareRoot()
    }

    public static func lraOpenLoopClampCode(rmsVolts: Double, frequencyHz: Double) -> UInt8 {
        byte(rmsVolts / (lraOpenLoopVoltsPerCode * (1 - lraOpenLoopDeadTime * frequencyHz).squareRoot()))
    }

    public static func ermOpenLoopDutyFactor(driveTimeSeconds: Double, idissSeconds: Double, blankingSeconds: Double) -> Double {
        (driveTimeSeconds - ermOpenLoopDriveLoss) / (driveTimeSeconds + idissSeconds + blankingSeconds)
    }

    public static func ermOpenLoopVoltage(code: UInt8, driveTimeSeconds: Double, idissSeconds: Double, blankingSeconds: Double) -> Double {
        Double(code) * ermOpenLoopVoltsPerCode
            * ermOpenLoopDutyFactor(driveTimeSeconds: driveTimeSeconds, idissSeconds: idissSeconds, blankingSeconds: blankingSeconds)
    }

    public static func ermOpenLoopClampCode(averageVolts: Double, driveTimeSeconds: Double, idissSeconds: Double, blankingSeconds: Double) -> UInt8 {
        let duty = ermOpenLoopDutyFactor(driveTimeSeconds: driveTimeSeconds, idissSeconds: idissSeconds, blankingSeconds: blankingSeconds)
        return byte(averageVolts / (ermOpenLoopVoltsPerCode * duty))
    }

    // MARK: timing

    /// DRIVE_TIME for an LRA: the chip's first guess of the half period.
    public static func lraDriveTimeCode(frequencyHz: Double) -> UInt8 {
        let halfPeriod = 0.5 / frequencyHz
        return UInt8(max(0, min(driveTimeMax, ((halfPeriod - lraDriveTimeBase) / lraDriveTimeStep).rounded())))
    }

    public static func lraDriveTimeSeconds(code: UInt8) -> Double { lraDriveTimeBase + lraDriveTimeStep * Double(code) }
    public static func ermDriveTimeSeconds(code: UInt8) -> Double { ermDriveTimeBase + ermDriveTimeStep * Double(code) }

    public static func lraPeriodSeconds(code: UInt8) -> Double { Double(code) * lraPeriodSecondsPerCode }

    public static func resonanceHz(lraPeriodCode code: UInt8) -> Double? {
        code == 0 ? nil : 1 / lraPeriodSeconds(code: code)
    }

    public static func lraPeriodCode(frequencyHz: Double) -> UInt8 { byte(1 / (frequencyHz * lraPeriodSecondsPerCode)) }

    public static func openLoopPeriodCode(frequencyHz: Double) -> UInt8 {
        UInt8(max(0, min(olPeriodMax, (1 / (frequencyHz * lraPeriodSecondsPerCode)).rounded())))
    }

    // MARK: supply and calibration results

    public static func supplyVolts(code: UInt8) -> Double { Double(code) * supplyFullScaleVolts / codeMax }
    public static func supplyCode(volts: Double) -> UInt8 { byte(volts * codeMax / supplyFullScaleVolts) }

    /// A_CAL_COMP: the drive is scaled by 1 + code / 255 to make up resistive losses.
    public static func compensationCoefficient(code: UInt8) -> Double { 1 + Double(code) / codeMax }
    public static func compensationCode(coefficient: Double) -> UInt8 { byte((coefficient - 1) * codeMax) }

    /// BEMF_GAIN codes 0...3 as amplifier gains (register 0x1A description).
    public static func backEMFGainFactor(code: UInt8, lra: Bool) -> Double {
        let erm = [0.255, 0.7875, 1.365, 3.0]
        let lraGains = [3.75, 7.5, 15, 22.5]
        let i = Int(min(code, FeedbackControlRegister.backEMFGainField.maxValue))
        return lra ? lraGains[i] : erm[i]
    }

    public static func backEMFVolts(code: UInt8, gainCode: UInt8, lra: Bool) -> Double {
        Double(code) / codeMax * backEMFFullScaleVolts / backEMFGainFactor(code: gainCode, lra: lra)
    }

    /// The code a back-EMF would give at a gain; may exceed 255 (the caller checks).
    public static func backEMFCodeUnclamped(volts: Double, gainCode: UInt8, lra: Bool) -> Double {
        volts * backEMFGainFactor(code: gainCode, lra: lra) / backEMFFullScaleVolts * codeMax
    }

    static func byte(_ x: Double) -> UInt8 { UInt8(max(0, min(codeMax, x.rounded()))) }
}
