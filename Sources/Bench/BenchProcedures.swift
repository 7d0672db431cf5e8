import Actuators
import DRV2605
import Hex

/// The bench procedures `hapbridge calibrate`, `diagnose` and `rom` run, on any
/// `HardwareDevice`: each returns what it found as a report and never throws (a
/// failure is a failed report with the error's line).
public enum BenchProcedures {
    /// Bring-up and auto-calibration for an actuator.
    public static func calibrate<D: HardwareDevice>(on device: D, profile: ActuatorProfile) async -> HardwareReport {
        var report = HardwareReport()
        report.add("device: \(device.summary)")
        report.add("actuator: \(profile.displayName), rated \(format(profile.ratedVoltage, 2)) V\(profile.kind == .lra ? " rms" : ""), \(profile.drive.loop.rawValue) loop")
        var driver = DRV2605Driver(bus: device.bus)
        do {
            let settings = try await driver.bringUp(profile: profile)
            let supply = try await driver.supplyVoltage()
            report.supplyVolts = supply
            report.chip = driver.variant
            report.add("chip: \(driver.variant.map(String.init(describing:)) ?? "?"), VBAT \(format(supply, 2)) V")
            report.lines += RegisterReport.settings(settings, profile: profile)
            device.clearAcceleration()
            let result: AutoCalibrationResult
            do {
                result = try await driver.autoCalibrate()
            } catch .autoCalibrationFailed(let failed) {
                report.fail(.autoCalibrationFailed(failed))
                report.lines += RegisterReport.calibration(failed)
                report.acceleration = device.acceleration()
                return report
            }
            report.add("auto-calibration: PASS")
            report.calibration = result
            report.lines += RegisterReport.calibration(result)
            report.acceleration = device.acceleration()
            if let a = report.acceleration { report.add("peak acceleration during calibration: \(AccelerationTrace.peakText(a.peakG)), \(a.provenance.text)") }
            report.add("store and write back after a reset: registers \(RegisterAddress.ratedVoltage)...\(RegisterAddress.feedbackControl) = " + result.storedBlock.map { Hex.literal($0, width: 2) }.joined(separator: " "))
        } catch {
            report.error(error)
        }
        return report
    }

    /// Identity, supply, the open/short diagnostic and faults; with a profile the chip
    /// is configured for it first (an LRA must also resonate).
    public static func diagnose<D: HardwareDevice>(on device: D, profile: ActuatorProfile?) async -> HardwareReport {
        var report = HardwareReport()
        report.add("device: \(device.summary)")
        var driver = DRV2605Driver(bus: device.bus)
        do {
            let variant = try await driver.detect()
            let status = try await driver.read(StatusRegister.self)
            report.add("chip: \(variant) (STATUS \(Hex.literal(status.rawValue, width: 2)), DEVICE_ID \(status.deviceID))")
            try await driver.reset()
            try await driver.setStandby(false)
            if let profile {
                report.add("actuator: \(profile.displayName)")
                report.lines += RegisterReport.settings(try await driver.configure(for: profile), profile: profile)
            } else {
                report.add("actuator: none given, reset settings (ERM, closed loop)")
            }
            report.add("\(RegisterAddress.supplyVoltage): \(format(try await driver.supplyVoltage(), 2)) V")
            device.clearAcceleration()
            let result = try await driver.runDiagnostics()
            report.acceleration = device.acceleration()
            if result.passed {
                report.add("diagnostic: PASS (DIAG_RESULT = 0, STATUS \(Hex.literal(result.status, width: 2)))")
            } else {
                report.fail(.diagnosticFailed(status: result.status))
            }
            if let f = result.resonanceHz {
                report.add("resonance: \(format(f, 1)) Hz (LRA_PERIOD while driven)" + (profile?.lra.map { ", profile says \(format($0.resonantFrequencyHz, 1)) Hz" } ?? ""))
            }
            try await driver.checkFaults()
            report.add("faults: none (OVER_TEMP = 0, OC_DETECT = 0)")
        } catch {
            report.error(error)
        }
        return report
    }

    /// One ROM library effect. `library` nil: the one the profile's settings choose
    /// (LRA library; ERM B closed loop, A open loop).
    public static func playROM<D: HardwareDevice>(
        _ rom: ROMEffect, library: ROMLibrary?, calibrateFirst: Bool, on device: D, profile: ActuatorProfile
    ) async -> HardwareReport {
        var report = HardwareReport()
        report.add("device: \(device.summary)")
        report.add("actuator: \(profile.displayName)")
        report.add("effect: \(rom.id.rawValue) \"\(rom.name)\"")
        var driver = DRV2605Driver(bus: device.bus)
        do {
            let settings = try await driver.bringUp(profile: profile)
            if calibrateFirst {
                let cal = try await driver.autoCalibrate()
                report.add("auto-calibration: \(cal)")
                try await driver.wait(microseconds: 500_000)  // let the calibration buzz die away
            }
            device.clearAcceleration()
            try await driver.loadSequence([.effect(rom.id)], library: library ?? settings.library)
            let slots = try await driver.readRaw(from: .waveformSequence1, count: 2)
            let lib = LibrarySelectionRegister(rawValue: try await driver.readRaw(.librarySelection))
            report.add("\(RegisterAddress.waveformSequence1), \(RegisterAddress.waveformSequence2) = \(slots.map { Hex.literal($0, width: 2) }.joined(separator: " ")); \(RegisterAddress.librarySelection) = \(Hex.literal(lib.rawValue, width: 2)) (\(lib.library))")
            try await driver.go()
            var waited: UInt64 = 0
            while try await driver.read(GoRegister.self).go, waited < 15_000_000 {
                try await driver.wait(microseconds: 1_000)
                waited += 1_000
            }
            report.add("\(RegisterAddress.go) cleared by the chip after \(format(Double(waited) / 1000, 0)) ms")
            if profile.kind == .lra, let f = try await driver.lraResonanceHz() { report.add("resonance while playing: \(format(f, 1)) Hz") }
            try await driver.wait(microseconds: 150_000)  // record the ring-down too
            try await driver.checkFaults()
            report.acceleration = device.acceleration()
            if let a = report.acceleration {
                report.add("peak acceleration: \(AccelerationTrace.peakText(a.peakG)) (rated \(AccelerationTrace.peakText(profile.ratedPeakAccelerationG)) peak), \(a.provenance.text)")
                if let settled = a.settledMilliseconds() { report.add("below 10 % of peak after: \(format(settled, 1)) ms") }
            }
        } catch {
            report.error(error)
        }
        return report
    }
}
