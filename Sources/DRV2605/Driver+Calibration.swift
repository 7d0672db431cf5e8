import Hex

/// What auto-calibration left in the chip, decoded.
public struct AutoCalibrationResult: Sendable, Equatable, CustomStringConvertible {
    public var passed: Bool
    public var isLRA: Bool
    /// A_CAL_COMP (0x18).
    public var compensationCode: UInt8
    /// A_CAL_BEMF (0x19).
    public var backEMFCode: UInt8
    /// FEEDBACK_CONTROL.BEMF_GAIN, as chosen by the chip.
    public var backEMFGainCode: UInt8
    /// FEEDBACK_CONTROL (0x1A) as a whole, to store and restore.
    public var feedbackControl: UInt8
    public var ratedVoltageCode: UInt8
    public var overdriveClampCode: UInt8
    /// LRA_PERIOD read right after calibration (LRA only; 0 = not measured).
    public var lraPeriodCode: UInt8

    public var compensationCoefficient: Double { DRV2605Formulas.compensationCoefficient(code: compensationCode) }
    public var backEMFGain: Double { DRV2605Formulas.backEMFGainFactor(code: backEMFGainCode, lra: isLRA) }
    public var backEMFVolts: Double { DRV2605Formulas.backEMFVolts(code: backEMFCode, gainCode: backEMFGainCode, lra: isLRA) }
    public var resonanceHz: Double? { isLRA ? DRV2605Formulas.resonanceHz(lraPeriodCode: lraPeriodCode) : nil }

    /// Registers 0x16...0x1A in order, as stored after calibration.
    public var storedBlock: [UInt8] { [ratedVoltageCode, overdriveClampCode, compensationCode, backEMFCode, feedbackControl] }

    public var description: String {
        var s = "\(passed ? "PASS" : "FAIL") A_CAL_COMP=\(Hex.literal(compensationCode, width: 2)) (x\(fmt(compensationCoefficient, 4)))"
        s += " A_CAL_BEMF=\(Hex.literal(backEMFCode, width: 2)) BEMF_GAIN=\(backEMFGainCode) (\(fmt(backEMFGain, 4))x) back-EMF=\(fmt(backEMFVolts, 3)) V"
        if let f = resonanceHz { s += " resonance=\(fmt(f, 1)) Hz" }
        return s
    }
}

extension AutoCalibrationResult {
    /// A passed calibration rebuilt from the registers it left (what a host stores and
    /// `restore(_:)` writes back): 0x16...0x1A as read, and LRA_PERIOD (0 for an ERM or
    /// when it was not measured). The actuator type and BEMF_GAIN are FEEDBACK_CONTROL's.
    public init(
        ratedVoltageCode: UInt8, overdriveClampCode: UInt8, compensationCode: UInt8, backEMFCode: UInt8, feedbackControl: UInt8,
        lraPeriodCode: UInt8
    ) {
        let feedback = FeedbackControlRegister(rawValue: feedbackControl)
        self.init(
            passed: true, isLRA: feedback.isLRA, compensationCode: compensationCode, backEMFCode: backEMFCode,
            backEMFGainCode: feedback.backEMFGain, feedbackControl: feedbackControl, ratedVoltageCode: ratedVoltageCode,
            overdriveClampCode: overdriveClampCode, lraPeriodCode: feedback.isLRA ? lraPeriodCode : 0)
    }
}

func fmt(_ x: Double, _ digits: Int) -> String {
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let r = (x * p).rounded() / p
    return "\(r)"
}

extension DRV2605Driver {
    /// The datasheet's auto-calibration: actuator settings in place (call `configure`
    /// first), MODE = 7, GO, wait for GO to clear (at least AUTO_CAL_TIME), read
    /// DIAG_RESULT and the results. Throws `.autoCalibrationFailed` on DIAG_RESULT = 1
    /// (the result is attached so a bench can still see what the chip measured).
    public func autoCalibrate() async throws(DRV2605Error) -> AutoCalibrationResult {
        let control4 = try await read(Control4Register.self)
        try await setMode(.autoCalibration)
        // Generous timeout: the minimum time plus the chip's own settling, x2.
        let timeout = control4.autoCalibrationTime.microseconds * 2 + 200_000
        let status = try await goAndWait(mode: .autoCalibration, timeoutMicroseconds: timeout)
        let block = try await readRaw(from: .ratedVoltage, count: RegisterAddress.calibrationBlock.count)
        let feedback = FeedbackControlRegister(rawValue: block[4])
        let period = feedback.isLRA ? try await readRaw(.lraPeriod) : 0
        try await setMode(.internalTrigger)
        let result = AutoCalibrationResult(
            passed: !status.diagnosticFailed, isLRA: feedback.isLRA, compensationCode: block[2], backEMFCode: block[3],
            backEMFGainCode: feedback.backEMFGain, feedbackControl: feedback.rawValue, ratedVoltageCode: block[0],
            overdriveClampCode: block[1], lraPeriodCode: period)
        guard result.passed else { throw .autoCalibrationFailed(result) }
        return result
    }

    /// Writes stored calibration back (after a reset or power cycle): 0x16...0x1A in
    /// one auto-incrementing write, as the datasheet recommends instead of re-running it.
    public func restore(_ calibration: AutoCalibrationResult) async throws(DRV2605Error) {
        try await writeRaw(.ratedVoltage, calibration.storedBlock)
    }
}
