import Actuators
import DRV2605

extension DRV2605Chip {
    public var stepSeconds: Double { Double(Self.stepMicroseconds) * 1e-6 }

    /// Moves virtual time on; physics steps at every 100 µs boundary crossed.
    public func advance(microseconds: UInt64) {
        var remaining = microseconds
        while remaining > 0 {
            let take = min(Self.stepMicroseconds - subStep, remaining)
            subStep += take
            nowMicroseconds += take
            remaining -= take
            if subStep == Self.stepMicroseconds {
                subStep = 0
                tick()
            }
        }
    }

    /// Moves virtual time on to `microseconds` since the chip's start; a moment already
    /// past changes nothing (a bus owner brings the chip to each transaction's time).
    public func advance(toMicroseconds microseconds: UInt64) {
        if microseconds > nowMicroseconds { advance(microseconds: microseconds - nowMicroseconds) }
    }

    public func advance(milliseconds: Double) { advance(microseconds: UInt64((milliseconds * 1000).rounded())) }

    /// Runs until GO clears (or `limit` passes); returns the time it took.
    @discardableResult
    public func runUntilIdle(limitMicroseconds: UInt64 = 20_000_000) -> UInt64 {
        let start = nowMicroseconds
        while isBusy && nowMicroseconds - start < limitMicroseconds { advance(microseconds: Self.stepMicroseconds) }
        return nowMicroseconds - start
    }

    func tick() {
        if resetRemaining > 0 {
            resetRemaining -= min(resetRemaining, Self.stepMicroseconds)
            if resetRemaining == 0 {
                var m = mode
                m.devReset = false
                registers[Int(RegisterAddress.mode.rawValue)] = m.rawValue
            }
        }
        if !standby && enablePin {
            registers[Int(RegisterAddress.supplyVoltage.rawValue)] = DRV2605Formulas.supplyCode(volts: supplyVolts)
        }

        var u = 0.0
        let awake = enablePin && !standby && resetRemaining == 0 && faults.isEmpty
            && !LibrarySelectionRegister(rawValue: peek(.librarySelection)).highImpedance
        if awake, let command = currentCommand() { u = outputVoltage(for: command) }

        switch load {
        case .open:
            break
        case .shorted:
            if isCalibratingOrDiagnosing {
                u = 0  // these routines check the load impedance before driving hard
            } else if abs(u) > 0.05 {
                latchedOverCurrent = true
                refreshFaultBits()
                stopActivity()
                u = 0
            }
        case .actuator(var a):
            let r = a.coilResistanceOhms
            a.step(volts: u * r / (r + Self.outputResistanceOhms), seconds: stepSeconds)
            let lraDriven = feedback.isLRA && a.kind == .lra && u != 0
            if lraDriven {
                periodMeter.sample(backEMF: a.backEMFVolts, at: Double(nowMicroseconds) * 1e-6, step: stepSeconds)
                // Braking (drive against the motion) skews the zero crossings, so the
                // register only takes periods while the drive is in phase.
                let inPhase = u * a.backEMFVolts >= 0
                if let p = periodMeter.periodSeconds, inPhase, closedLoopLRA || isCalibratingOrDiagnosing {
                    registers[Int(RegisterAddress.lraPeriod.rawValue)] = DRV2605Formulas.lraPeriodCode(frequencyHz: 1 / p)
                }
            } else {
                periodMeter.restart()
            }
            load = .actuator(a)
        }
        lastDriveVolts = u
        if isRecording && trace.count < Self.traceCapacity {
            trace.append(time: nowMicroseconds, acceleration: accelerationG, drive: u)
        }
        advanceActivity()
    }

    var closedLoopLRA: Bool { feedback.isLRA && !control3.lraOpenLoop }
    var isCalibratingOrDiagnosing: Bool {
        switch activity {
        case .diagnostics, .autoCalibration: true
        default: false
        }
    }

    func advanceActivity() {
        switch activity {
        case .idle:
            break
        case .sequence(var p):
            if p.advance(by: Self.stepMicroseconds) {
                activity = .sequence(p)
            } else {
                stopActivity()
            }
        case .diagnostics(let remaining):
            if remaining > Self.stepMicroseconds {
                activity = .diagnostics(remaining: remaining - Self.stepMicroseconds)
            } else {
                finishDiagnostics()
            }
        case .autoCalibration(let remaining):
            if remaining > Self.stepMicroseconds {
                activity = .autoCalibration(remaining: remaining - Self.stepMicroseconds)
            } else {
                finishAutoCalibration()
            }
        }
    }
}
