import Actuators
import DRV2605

extension DRV2605Chip {
    /// Smallest A_CAL_BEMF the model accepts: below it the actuator barely moved.
    static let minimumBackEMFCode = 16.0

    // MARK: sequencer

    func startSequence(setsGo: Bool) {
        let library = LibrarySelectionRegister(rawValue: peek(.librarySelection)).library
        var timing = SynthesisTiming()
        if variant.isLVariant, control5.oneMillisecondPlaybackInterval { timing.playbackScale = 0.2 }
        timing.overdriveOffset = TimeOffsetRegister(address: .overdriveTimeOffset, rawValue: peek(.overdriveTimeOffset)).offsetMicroseconds
        timing.sustainOffset = TimeOffsetRegister(address: .sustainPositiveTimeOffset, rawValue: peek(.sustainPositiveTimeOffset)).offsetMicroseconds
        timing.brakeOffset = TimeOffsetRegister(address: .brakeTimeOffset, rawValue: peek(.brakeTimeOffset)).offsetMicroseconds

        var segments: [Segment] = []
        for slot in RegisterAddress.waveformSequence {
            let entry = WaveformSequenceEntry(rawValue: peek(slot))
            if entry == .end { break }
            switch entry {
            case .effect(let id):
                // An empty library, a part without ROM, or an id past 123 plays silence.
                guard library != .empty, variant.hasROMLibraries, let effect = ROMEffect.named(id) else { continue }
                segments += ROMSynthesis.segments(for: effect, timing: timing)
            case .wait(let units):
                segments.append(Segment(kind: .idle, level: 0, microseconds: UInt64(units) * WaveformSequenceEntry.waitUnitMicroseconds))
            case .end:
                break
            }
        }
        if setsGo { setGo(true) }
        activity = .sequence(SequencePlayback(segments: segments))
    }

    // MARK: diagnostics (MODE 6)

    func startDiagnostics() {
        periodMeter.restart()
        activity = .diagnostics(remaining: Self.diagnosticsMicroseconds)
    }

    func finishDiagnostics() {
        let passed: Bool
        switch load {
        case .open, .shorted:
            passed = false
        case .actuator(let a):
            if feedback.isLRA {
                // An LRA must resonate: back-EMF well above noise after the run.
                passed = a.kind == .lra && a.backEMFAmplitude > 0.01
            } else {
                passed = true  // an ERM's coil resistance is in range
            }
        }
        setStatus { $0.diagnosticFailed = !passed }
        stopActivity()
    }

    // MARK: auto-calibration (MODE 7)

    func startAutoCalibration() {
        periodMeter.restart()
        activity = .autoCalibration(remaining: control4.autoCalibrationTime.microseconds)
    }

    /// Results derived from the attached actuator: A_CAL_COMP from its coil
    /// resistance against the output stage, A_CAL_BEMF and BEMF_GAIN from the back-EMF
    /// it produced at the rated voltage by the end of AUTO_CAL_TIME. Fails (DIAG_RESULT
    /// = 1) for no actuator, a short, an actuator of the other type, or a back-EMF no
    /// gain can put in range (wrong rated voltage, stuck mass).
    func finishAutoCalibration() {
        defer { stopActivity() }
        let isLRA = feedback.isLRA
        guard case .actuator(let a) = load, (a.kind == .lra) == isLRA else {
            setStatus { $0.diagnosticFailed = true }
            return
        }
        let bemf = a.backEMFAmplitude
        var chosen: (gain: UInt8, code: Double)?
        for gain in FeedbackControlRegister.backEMFGainCodes.reversed() {
            let code = DRV2605Formulas.backEMFCodeUnclamped(volts: bemf, gainCode: gain, lra: isLRA)
            if code <= Double(UInt8.max) { chosen = (gain, code); break }
        }
        guard let chosen, chosen.code >= Self.minimumBackEMFCode else {
            setStatus { $0.diagnosticFailed = true }
            return
        }
        let coefficient = (a.coilResistanceOhms + Self.outputResistanceOhms) / a.coilResistanceOhms
        registers[Int(RegisterAddress.autoCalibrationCompensation.rawValue)] = DRV2605Formulas.compensationCode(coefficient: coefficient)
        registers[Int(RegisterAddress.autoCalibrationBackEMF.rawValue)] = UInt8(chosen.code.rounded())
        var fb = feedback
        fb.backEMFGain = chosen.gain
        registers[Int(RegisterAddress.feedbackControl.rawValue)] = fb.rawValue
        setStatus { $0.diagnosticFailed = false }
    }
}
