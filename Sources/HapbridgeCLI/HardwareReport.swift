import Actuators
import DRV2605

/// What a hardware command found: the lines it prints and whether it passed.
public struct HardwareReport: Sendable {
    public var lines: [String] = []
    public var passed = true
    public var acceleration: AccelerationTrace?
    public init() {}
    mutating func add(_ line: String) { lines.append(line) }
    mutating func fail(_ line: String) {
        lines.append(line)
        passed = false
    }
    public var text: String { lines.joined(separator: "\n") }
}

/// Register-level description of what bring-up wrote, for the bench engineer.
enum SettingsReport {
    static func lines(_ s: DriveSettings, profile: ActuatorProfile) -> [String] {
        var out = ["settings written (datasheet equations, see Hardware/actuators/README.md):"]
        if s.isLRA, let f = profile.lra?.resonantFrequencyHz {
            let v = s.openLoop
                ? DRV2605Formulas.lraOpenLoopVoltage(code: s.overdriveClamp, frequencyHz: f)
                : DRV2605Formulas.lraRatedVoltage(code: s.ratedVoltage, frequencyHz: f, sampleTimeSeconds: s.control2.sampleTimeMicroseconds * 1e-6)
            out.append("  RATED_VOLTAGE    (0x16) = \(hexByte(s.ratedVoltage))  -> \(format(v, 3)) V rms at \(format(f, 1)) Hz")
        } else {
            out.append("  RATED_VOLTAGE    (0x16) = \(hexByte(s.ratedVoltage))  -> \(format(DRV2605Formulas.ermRatedVoltage(code: s.ratedVoltage), 3)) V average")
        }
        out.append("  OD_CLAMP         (0x17) = \(hexByte(s.overdriveClamp))  -> \(format(DRV2605Formulas.closedLoopClampVoltage(code: s.overdriveClamp), 3)) V peak (closed-loop clamp)")
        out.append("  FEEDBACK_CONTROL (0x1A) = \(hexByte(s.feedback.rawValue))  \(s.isLRA ? "LRA" : "ERM"), brake \(s.feedback.brakeFactor), loop gain \(s.feedback.loopGain)")
        let dt = s.isLRA ? DRV2605Formulas.lraDriveTimeSeconds(code: s.control1.driveTime) : DRV2605Formulas.ermDriveTimeSeconds(code: s.control1.driveTime)
        out.append("  CONTROL1         (0x1B) = \(hexByte(s.control1.rawValue))  DRIVE_TIME \(s.control1.driveTime) -> \(format(dt * 1000, 1)) ms"
            + (s.isLRA ? " half period (first guess \(format(0.5 / dt, 1)) Hz)" : " back-EMF sample period"))
        out.append("  CONTROL3         (0x1D) = \(hexByte(s.control3.rawValue))  \(s.openLoop ? "open loop" : "closed loop")")
        out.append("  CONTROL4         (0x1E) = \(hexByte(s.control4.rawValue))  AUTO_CAL_TIME \(s.control4.autoCalibrationTime)")
        if let p = s.openLoopPeriod { out.append("  OL_LRA_PERIOD    (0x20) = \(hexByte(p))  -> \(format(1 / DRV2605Formulas.lraPeriodSeconds(code: p), 1)) Hz") }
        return out
    }

    static func calibration(_ r: AutoCalibrationResult) -> [String] {
        var out = [
            "  A_CAL_COMP       (0x18) = \(hexByte(r.compensationCode))  -> compensation x\(format(r.compensationCoefficient, 4)) (resistive losses)",
            "  A_CAL_BEMF       (0x19) = \(hexByte(r.backEMFCode))  -> back-EMF \(format(r.backEMFVolts, 3)) V at BEMF_GAIN \(r.backEMFGainCode) (\(format(r.backEMFGain, 4))x)",
        ]
        if let f = r.resonanceHz { out.append("  LRA_PERIOD       (0x22) = \(hexByte(r.lraPeriodCode))  -> resonance \(format(f, 1)) Hz") }
        return out
    }
}
