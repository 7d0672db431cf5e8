import Actuators
import DRV2605

/// How the chip turns a wanted level into volts on OUT+/OUT-: open loop scales
/// OD_CLAMP; closed loop regulates the back-EMF to the calibrated reference, which
/// is what produces automatic overdrive (clamped at OD_CLAMP) and braking (scaled
/// by FB_BRAKE_FACTOR).
struct DriveCommand: Equatable {
    var level: Double
    var kind: Segment.Kind
}

extension DRV2605Chip {
    /// LOOP_GAIN as a proportional gain on the normalised back-EMF error (ours; TI
    /// gives the settings' names, not their values).
    static let loopGains: [Double] = [2, 4, 8, 16]
    /// Below this fraction of the reference the LRA has no usable back-EMF to lock to,
    /// and the chip drives at its DRIVE_TIME guess instead.
    static let lockThreshold = 0.02

    func currentCommand() -> DriveCommand? {
        switch activity {
        case .sequence(let p):
            guard let s = p.current else { return nil }
            return DriveCommand(level: s.level, kind: s.kind)
        case .diagnostics, .autoCalibration:
            return DriveCommand(level: 1, kind: .drive(automaticOverdriveAndBrake: false))
        case .idle:
            switch mode.mode {
            case .realTimePlayback: return DriveCommand(level: rtpLevel(), kind: .drive(automaticOverdriveAndBrake: true))
            case .pwmOrAnalogInput: return DriveCommand(level: pwmLevel(), kind: .drive(automaticOverdriveAndBrake: true))
            case .audioToVibe: return DriveCommand(level: audioLevel(), kind: .drive(automaticOverdriveAndBrake: true))
            default: return nil
            }
        }
    }

    var isOpenLoop: Bool { feedback.isLRA ? control3.lraOpenLoop : control3.ermOpenLoop }
    var bidirectional: Bool { isOpenLoop || control2.bidirectionalInput }

    /// RTP_INPUT as a level in -1...1 (datasheet "Data formats for waveform playback"):
    /// open loop and closed-loop bidirectional put zero drive at mid-scale (signed 0x00,
    /// unsigned 0x80) and full scale at 0x7F / 0xFF, below mid-scale meaning reverse in
    /// open loop and zero drive (so the loop brakes) in closed loop; closed-loop
    /// unidirectional spreads the whole input range over 0...full, like PWM duty.
    func rtpLevel() -> Double {
        let raw = peek(.rtpInput)
        let signed = Double(Int8(bitPattern: raw))
        if bidirectional {
            return control3.rtpUnsigned ? max(-1, (Double(raw) - 128) / 127) : signed / 127
        }
        let fromBottom = control3.rtpUnsigned ? Double(raw) : signed + 128
        return fromBottom / Double(UInt8.max)
    }

    func pwmLevel() -> Double {
        let duty = min(1, max(0, inputLevel))
        return bidirectional ? 2 * duty - 1 : duty
    }

    /// Audio-to-vibe, roughly: the input peak mapped from A2V min/max input to min/max
    /// output drive (1.8 V full scale assumed for the input codes).
    func audioLevel() -> Double {
        let fullScale = 1.8
        let minIn = Double(peek(.audioToVibeMinInput)) / 255 * fullScale
        let maxIn = Double(peek(.audioToVibeMaxInput)) / 255 * fullScale
        let minOut = Double(peek(.audioToVibeMinOutput)) / 255
        let maxOut = Double(peek(.audioToVibeMaxOutput)) / 255
        guard inputLevel >= minIn, maxIn > minIn else { return 0 }
        let f = min(1, (inputLevel - minIn) / (maxIn - minIn))
        return minOut + (maxOut - minOut) * f
    }

    /// The frequency the chip believes the LRA has: measured if it has locked, else
    /// from DRIVE_TIME (half period = 0.5 ms + 0.1 ms x code).
    var estimatedLRAFrequency: Double {
        if let f = DRV2605Formulas.resonanceHz(lraPeriodCode: peek(.lraPeriod)) { return f }
        return 0.5 / DRV2605Formulas.lraDriveTimeSeconds(code: control1.driveTime)
    }

    var openLoopLRAFrequency: Double {
        if variant.isLVariant {
            let code = OpenLoopLRAPeriodRegister(rawValue: peek(.openLoopLRAPeriod)).period
            if code > 0 { return 1 / DRV2605Formulas.lraPeriodSeconds(code: code) }
        }
        return 0.5 / DRV2605Formulas.lraDriveTimeSeconds(code: control1.driveTime)
    }

    var ratedVolts: Double {
        let code = peek(.ratedVoltage)
        if feedback.isLRA {
            return DRV2605Formulas.lraRatedVoltage(
                code: code, frequencyHz: estimatedLRAFrequency, sampleTimeSeconds: control2.sampleTimeMicroseconds * 1e-6)
        }
        return DRV2605Formulas.ermRatedVoltage(code: code)
    }

    var openLoopFullScaleVolts: Double {
        let code = peek(.overdriveClamp)
        if feedback.isLRA { return DRV2605Formulas.lraOpenLoopVoltage(code: code, frequencyHz: openLoopLRAFrequency) }
        let (idiss, blank) = DriveSettings.idissAndBlankingSeconds(control2: control2, isLRA: false)
        return DRV2605Formulas.ermOpenLoopVoltage(
            code: code, driveTimeSeconds: DRV2605Formulas.ermDriveTimeSeconds(code: control1.driveTime), idissSeconds: idiss,
            blankingSeconds: blank)
    }

    var clampVolts: Double {
        let od = isOpenLoop ? openLoopFullScaleVolts : DRV2605Formulas.closedLoopClampVoltage(code: peek(.overdriveClamp))
        return min(od, supplyVolts)
    }

    /// The back-EMF amplitude the calibration says full scale produces.
    var referenceBackEMF: Double {
        DRV2605Formulas.backEMFVolts(code: peek(.autoCalibrationBackEMF), gainCode: feedback.backEMFGain, lra: feedback.isLRA)
    }

    var compensation: Double {
        if case .autoCalibration = activity, let a = load.actuator {
            // During calibration the chip has just measured the load impedance.
            return (a.coilResistanceOhms + Self.outputResistanceOhms) / a.coilResistanceOhms
        }
        return DRV2605Formulas.compensationCoefficient(code: peek(.autoCalibrationCompensation))
    }

    func squareOscillator(frequencyHz: Double) -> Double {
        oscillatorPhase += frequencyHz * stepSeconds
        oscillatorPhase -= oscillatorPhase.rounded(.down)
        return oscillatorPhase < 0.5 ? 1 : -1
    }

    func outputVoltage(for command: DriveCommand) -> Double {
        if command.kind == .idle { return 0 }
        let limit = clampVolts
        let isLRA = feedback.isLRA
        if isOpenLoop {
            let level = command.kind == .brake ? -command.level : command.level
            let amplitude = max(-limit, min(limit, level * openLoopFullScaleVolts * compensation))
            return isLRA ? amplitude * squareOscillator(frequencyHz: openLoopLRAFrequency) : amplitude
        }

        let target = command.kind == .brake ? 0 : max(0, command.level)
        let automatic: Bool
        switch command.kind {
        case .drive(let auto): automatic = auto
        case .brake, .idle: automatic = true
        }
        let rated = ratedVolts
        let measured = load.actuator?.backEMFAmplitude ?? 0
        let reference = max(referenceBackEMF, 1e-6)
        var amplitude = rated * target
        if automatic {
            let error = (target * reference - measured) / reference
            let gain = Self.loopGains[Int(feedback.loopGain.rawValue)]
            if error >= 0 {
                amplitude += gain * rated * error
            } else if let brake = feedback.brakeFactor.multiplier {
                amplitude += gain * brake * rated * error
            } else {
                amplitude = max(0, amplitude + gain * rated * error)
            }
        }
        amplitude = max(-limit, min(limit, amplitude * compensation))
        guard isLRA else { return amplitude }
        // LRA: commutate with the back-EMF (drive in phase with the mass velocity);
        // before there is any, run at the DRIVE_TIME guess.
        let instant = load.actuator?.backEMFVolts ?? 0
        if measured > Self.lockThreshold * reference && instant != 0 {
            return instant > 0 ? amplitude : -amplitude
        }
        return amplitude > 0 ? amplitude * squareOscillator(frequencyHz: estimatedLRAFrequency) : 0
    }
}
