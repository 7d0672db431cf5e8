import Actuators

/// The register values that set the chip up for one actuator, computed from its
/// profile with the datasheet equations (see `DRV2605Formulas`). Pure: no I/O, so
/// the numbers can be checked by hand and shown before anything is written.
public struct DriveSettings: Sendable, Equatable {
    public var isLRA: Bool
    public var openLoop: Bool
    public var ratedVoltage: UInt8
    public var overdriveClamp: UInt8
    public var feedback: FeedbackControlRegister
    public var control1: Control1Register
    public var control2: Control2Register
    public var control3: Control3Register
    public var control4: Control4Register
    /// OL_LRA_PERIOD for an open-loop LRA on an L part; nil otherwise.
    public var openLoopPeriod: UInt8?
    public var library: ROMLibrary

    /// Defaults follow the datasheet's recommended start values (reset values of
    /// CONTROL2: SAMPLE_TIME 300 us, BLANKING/IDISS code 1) so the LRA rated-voltage
    /// equation uses the same sample time the chip will.
    public init(profile: ActuatorProfile, variant: DeviceVariant = .drv2605L) throws(DRV2605Error) {
        isLRA = profile.kind == .lra
        openLoop = profile.drive.loop == .open
        control2 = Control2Register(rawValue: RegisterAddress.control2.resetValue(on: variant))
        control3 = Control3Register(rawValue: RegisterAddress.control3.resetValue(on: variant))
        control4 = Control4Register(rawValue: RegisterAddress.control4.resetValue(on: variant))
        control1 = Control1Register(rawValue: RegisterAddress.control1.resetValue(on: variant))
        feedback = FeedbackControlRegister(rawValue: RegisterAddress.feedbackControl.resetValue(on: variant))
        feedback.isLRA = isLRA
        // CONTROL3 resets with ERM_OPEN_LOOP set: closed loop must clear it explicitly.
        control3.ermOpenLoop = openLoop && !isLRA
        control3.lraOpenLoop = openLoop && isLRA
        // TI: ERM library A has overdrive built into its waveforms and belongs in open
        // loop; B-F rely on the closed loop's automatic overdrive and braking.
        library = isLRA ? .lra : (openLoop ? .ermA : .ermB)
        openLoopPeriod = nil

        switch profile.drive.brakeFactor {
        case nil: feedback.brakeFactor = .disabled
        case let m?:
            guard let b = BrakeFactor(multiplier: m) else { throw .invalidConfiguration("brake factor \(m)x is not one of 1, 2, 3, 4, 6, 8, 16") }
            feedback.brakeFactor = b
        }
        guard let gain = LoopGain.allCases.first(where: { $0.description == profile.drive.loopGain }) else {
            throw .invalidConfiguration("loop gain '\(profile.drive.loopGain)'")
        }
        feedback.loopGain = gain
        guard let calTime = AutoCalibrationTime.allCases.first(where: { $0.microseconds == UInt64(profile.drive.autoCalibrationMilliseconds) * 1000 }) else {
            throw .invalidConfiguration("auto-calibration time \(profile.drive.autoCalibrationMilliseconds) ms is not 150, 250, 500 or 1000")
        }
        control4.autoCalibrationTime = calTime

        if isLRA {
            guard let f = profile.lra?.resonantFrequencyHz else { throw .invalidConfiguration("LRA profile without resonant frequency") }
            let halfPeriod = 0.5 / f
            let range = DRV2605Formulas.lraDriveTimeSeconds(code: 0)...DRV2605Formulas.lraDriveTimeSeconds(code: Control1Register.driveTimeField.maxValue)
            guard range.contains(halfPeriod) else {
                throw .invalidConfiguration("LRA at \(f) Hz: half period \(halfPeriod * 1000) ms is outside DRIVE_TIME's \(range.lowerBound * 1000)–\(range.upperBound * 1000) ms")
            }
            control1.driveTime = DRV2605Formulas.lraDriveTimeCode(frequencyHz: f)
            let sample = control2.sampleTimeMicroseconds * 1e-6
            ratedVoltage = DRV2605Formulas.lraRatedVoltageCode(rmsVolts: profile.ratedVoltage, frequencyHz: f, sampleTimeSeconds: sample)
            if openLoop {
                // Open loop: OD_CLAMP is the full-scale drive (datasheet), i.e. the rated RMS.
                overdriveClamp = DRV2605Formulas.lraOpenLoopClampCode(rmsVolts: profile.ratedVoltage, frequencyHz: f)
                if variant.isLVariant { openLoopPeriod = DRV2605Formulas.openLoopPeriodCode(frequencyHz: f) }
            } else {
                // The LRA drive is a square-ish wave, so its peak is its RMS.
                overdriveClamp = DRV2605Formulas.closedLoopClampCode(peakVolts: profile.maxVoltage)
            }
        } else {
            ratedVoltage = DRV2605Formulas.ermRatedVoltageCode(averageVolts: profile.ratedVoltage)
            if openLoop {
                let driveTime = DRV2605Formulas.ermDriveTimeSeconds(code: control1.driveTime)
                let (idiss, blank) = Self.idissAndBlankingSeconds(control2: control2, isLRA: false)
                overdriveClamp = DRV2605Formulas.ermOpenLoopClampCode(
                    averageVolts: profile.maxVoltage, driveTimeSeconds: driveTime, idissSeconds: idiss, blankingSeconds: blank)
            } else {
                overdriveClamp = DRV2605Formulas.closedLoopClampCode(peakVolts: profile.maxVoltage)
            }
        }
    }

    /// IDISS_TIME and BLANKING_TIME codes 0...3 (CONTROL5 high bits left at 0) in
    /// seconds. ERM: 45/75/150/225 us; LRA: 15/25/50/75 us (DRV2605L table, read from
    /// memory of SLOS854, not re-checked this session: verify). Only the ERM open-loop
    /// clamp equation uses them.
    public static func idissAndBlankingSeconds(control2: Control2Register, isLRA: Bool) -> (Double, Double) {
        let erm = [45e-6, 75e-6, 150e-6, 225e-6]
        let lra = [15e-6, 25e-6, 50e-6, 75e-6]
        let table = isLRA ? lra : erm
        return (table[Int(control2.currentDissipationTime)], table[Int(control2.blankingTime)])
    }
}
