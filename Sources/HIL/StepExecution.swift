import Actuators
import Bench
import DRV2605
import Devices
import FileAccess
import Foundation
import Haptics
import Measurements

/// One step on one device: what it measured and whether its own procedure passed, or
/// the problem that kept it from a verdict. Limits are applied by the runner.
struct StepOutcome: Sendable {
    /// FAIL when the procedure itself reported one; ERROR when what it did cannot be
    /// judged though it ran (a play that was late, or stopped for the device's sake:
    /// `StepPlay`); PASS otherwise; SKIP with a reason.
    var verdict: Verdict = .pass
    var message: String?
    var figures: [BenchMeasurement] = []
    /// Figures that could not be measured, with why.
    var unmeasured: [String] = []
    var trace: PlayTrace?
    /// The frequency response (sweep steps), for its plot.
    var sweep: FrequencySweep?
}

enum StepExecution {
    /// `note`: a line of progress while the step runs (a flash's phases), for the live output.
    static func run(_ step: Step, on slot: DeviceSlot, scriptDirectory: String, note: @escaping @Sendable (String) -> Void = { _ in }) async throws(StepProblem)
        -> StepOutcome
    {
        switch step.action {
        case .calibrate(let runs):
            let bench = try await openBench(slot)
            let result = await CalibrationRuns.run(runs, on: bench, profile: slot.profile, stop: { slot.interruption.reason != nil })
            await bench.close()
            // By how each run ended (`HardwareReport.Ending`), not by its lines.
            var findings: [HardwareReport.Finding] = []
            for report in result.reports {
                switch report.ending {
                case .passed: break
                case .failed(let finding): findings.append(finding)
                case .error(let e): throw .error("calibrate: \(e)")
                case .interrupted(let why): throw .error(why)
                }
            }
            var o = StepOutcome(figures: result.measurements)
            if let first = findings.first, step.limits.isEmpty {
                o.verdict = .fail
                o.message = "auto-calibration failed \(findings.count) of \(runs) run(s): \(first)"
            }
            return o
        case .diagnose:
            let bench = try await openBench(slot)
            let report = await BenchProcedures.diagnose(on: bench, profile: slot.profile)
            var o = StepOutcome()
            if report.passed, slot.profile.kind == .lra, step.limits.contains(where: { $0.figure == .f0 }) {
                do { o.figures.append(try await Resonance.measure(on: bench, profile: slot.profile)) } catch { o.unmeasured.append(error.description) }
            }
            await bench.close()
            switch report.ending {
            case .passed: break
            case .failed(let finding):
                o.verdict = .fail
                o.message = finding.description
            case .error(let e): throw .error("diagnose: \(e)")
            case .interrupted(let why): throw .error(why)
            }
            return o
        case .play(let spec), .measure(let spec):
            return try await StepPlay.run(spec, measuring: step.kind == .measure, on: slot, scriptDirectory: scriptDirectory)
        case .compare(let reference, let pattern, let limits):
            return try await StepCompare.run(reference: reference, pattern: pattern, limits: limits, on: slot, scriptDirectory: scriptDirectory)
        case .sweep(let options):
            let bench = try await openBench(slot)
            let sweep: FrequencySweep
            do {
                sweep = try await FrequencySweep.run(on: bench, profile: slot.profile, options: options)
            } catch {
                await bench.close()
                throw .error("sweep: \(error)")
            }
            await bench.close()
            return outcome(of: sweep)
        case .wait(let ms):
            // The simulated board runs in virtual time and only while a step has it
            // open: a pause between steps changes nothing there, so it is not waited.
            // Elsewhere the run's interruption ends it.
            if !slot.isSimulated { await slot.interruption.sleep(seconds: ms / 1000) }
            return StepOutcome()
        case .flash(let image):
            return try await StepFlash.run(image: image, on: slot, scriptDirectory: scriptDirectory, note: note)
        case .unplug:
            if case .failure(let why) = slot.power { return StepOutcome(verdict: .skipped, message: why.description) }
            let how = try await slot.switchPower(on: false)
            // A hub that does not really switch its port's power leaves the board listed.
            let gone = slot.isSimulated ? 0 : await slot.awaitPresence(false, within: PortPower.goneTimeoutSeconds)
            guard gone != nil else {
                throw .error("\(slot.spec.name) (\(slot.spec.address)) is still on USB \(Limit.format(PortPower.goneTimeoutSeconds)) s after its power was cut (\(how)): does the hub switch each port's power? (uhubctl lists the hubs that do)")
            }
            return StepOutcome(message: "unplugged (\(how))")
        case .replug:
            if case .failure(let why) = slot.power { return StepOutcome(verdict: .skipped, message: why.description) }
            // Replugging a device that is in (a test's first step, after the runner
            // plugged it back for the attempt) checks it is there.
            var how: String?
            if slot.unplugged { how = try await slot.switchPower(on: true) }
            if slot.isSimulated { return StepOutcome() }
            guard let took = await slot.awaitPresence(true, within: replugWaitSeconds) else {
                throw .error("\(slot.spec.name) (\(slot.spec.address)) did not come back within \(Limit.format(replugWaitSeconds)) s of being plugged in\(how.map { " (\($0))" } ?? "")")
            }
            var o = StepOutcome(message: how.map { "plugged in (\($0)); back on USB after \(String(format: "%.1f", took)) s" } ?? "already plugged in")
            o.figures = [BenchMeasurement(name: replugFigure, unit: .milliseconds, value: (took * 1000).rounded())]
            return o
        }
    }

    /// How long a replugged board has to enumerate again: a real board within a
    /// second or two; the emulated ELF board boots its harness first.
    static let replugWaitSeconds = 30.0

    /// The figure a `replug` step on USB records: how long the board took to be back.
    static let replugFigure = "back on USB after"

    /// A sweep's figures: f0 and Q of the fitted resonance, and the bandwidth where
    /// both −3 dB points lay inside the range; what could not be fitted, with why.
    static func outcome(of sweep: FrequencySweep) -> StepOutcome {
        var o = StepOutcome(sweep: sweep)
        switch sweep.response.resonance {
        case .success(let fit):
            o.figures = [
                BenchMeasurement(name: Figure.f0.measurementName(in: .sweep), unit: .hertz, value: fit.frequencyHz),
                BenchMeasurement(name: Figure.q.measurementName, unit: .one, value: fit.qualityFactor),
            ]
            if let bandwidth = fit.bandwidthHz {
                o.figures.append(BenchMeasurement(name: Figure.bandwidth.measurementName, unit: .hertz, value: bandwidth))
            } else {
                o.unmeasured.append("\(Figure.bandwidth.measurementName): a −3 dB point lies outside the swept range (widen from/to)")
            }
        case .failure(let why):
            o.unmeasured = [Figure.f0, .q, .bandwidth].map { "\($0.measurementName(in: .sweep)): \(why)" }
        }
        return o
    }

    /// A bench session on the slot's device whose every wait the run's interruption
    /// cuts short (`BridgeLink.interruption`); `close()` stops the actuator whatever
    /// happened.
    static func openBench(_ slot: DeviceSlot) async throws(StepProblem) -> BridgeBench {
        let opened = try slot.open()
        let interruption = slot.interruption
        do { return try await BridgeBench(opened, interruption: { interruption.reason }) } catch { throw .error("\(slot.spec.name): \(error)") }
    }
}
