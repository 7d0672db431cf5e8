import Actuators
import DRV2605
import Hex

/// Register-level description of what bring-up and calibration wrote and read, for the
/// bench engineer.
public enum RegisterReport {
    /// One register line: name, address, value, meaning — the address from the register map.
    public static func row(_ register: RegisterAddress, _ value: UInt8, _ meaning: String) -> String {
        let name = register.description.padding(toLength: 24, withPad: " ", startingAt: 0)
        return "  \(name) = \(Hex.literal(value, width: 2))  \(meaning)"
    }

    /// What bring-up wrote (datasheet equations).
    public static func settings(_ s: DriveSettings, profile: ActuatorProfile) -> [String] {
        var out = ["settings written (datasheet equations, see Hardware/actuators/README.md):"]
        if s.isLRA, let f = profile.lra?.resonantFrequencyHz {
            let v = s.openLoop
                ? DRV2605Formulas.lraOpenLoopVoltage(code: s.overdriveClamp, frequencyHz: f)
                : DRV2605Formulas.lraRatedVoltage(code: s.ratedVoltage, frequencyHz: f, sampleTimeSeconds: s.control2.sampleTimeMicroseconds * 1e-6)
            out.append(row(.ratedVoltage, s.ratedVoltage, "-> \(format(v, 3)) V rms at \(format(f, 1)) Hz"))
        } else {
            out.append(row(.ratedVoltage, s.ratedVoltage, "-> \(format(DRV2605Formulas.ermRatedVoltage(code: s.ratedVoltage), 3)) V average"))
        }
        out.append(row(.overdriveClamp, s.overdriveClamp, "-> \(format(DRV2605Formulas.closedLoopClampVoltage(code: s.overdriveClamp), 3)) V peak (closed-loop clamp)"))
        let kind = s.isLRA ? "LRA" : "ERM"
        out.append(row(.feedbackControl, s.feedback.rawValue, "\(kind), brake \(s.feedback.brakeFactor), loop gain \(s.feedback.loopGain)"))
        let dt = s.isLRA ? DRV2605Formulas.lraDriveTimeSeconds(code: s.control1.driveTime) : DRV2605Formulas.ermDriveTimeSeconds(code: s.control1.driveTime)
        let driveMeaning = s.isLRA ? " half period (first guess \(format(0.5 / dt, 1)) Hz)" : " back-EMF sample period"
        out.append(row(.control1, s.control1.rawValue, "DRIVE_TIME \(s.control1.driveTime) -> \(format(dt * 1000, 1)) ms" + driveMeaning))
        out.append(row(.control3, s.control3.rawValue, s.openLoop ? "open loop" : "closed loop"))
        out.append(row(.control4, s.control4.rawValue, "AUTO_CAL_TIME \(s.control4.autoCalibrationTime)"))
        if let p = s.openLoopPeriod { out.append(row(.openLoopLRAPeriod, p, "-> \(format(1 / DRV2605Formulas.lraPeriodSeconds(code: p), 1)) Hz")) }
        return out
    }

    /// What auto-calibration found, decoded.
    public static func calibration(_ r: AutoCalibrationResult) -> [String] {
        var out = [
            row(.autoCalibrationCompensation, r.compensationCode, "-> compensation x\(format(r.compensationCoefficient, 4)) (resistive losses)"),
            row(.autoCalibrationBackEMF, r.backEMFCode, "-> back-EMF \(format(r.backEMFVolts, 3)) V at BEMF_GAIN \(r.backEMFGainCode) (\(format(r.backEMFGain, 4))x)"),
        ]
        if let f = r.resonanceHz { out.append(row(.lraPeriod, r.lraPeriodCode, "-> resonance \(format(f, 1)) Hz")) }
        return out
    }
}
