import Actuators
import Bench
import DRV2605
import FileAccess
import FirmwareImage

extension TestScript {
    /// What the script asks of its bench, checked before anything runs, so that a slip
    /// is a line of `file:line: key: rule` (exit 2) rather than an ERROR found mid-run:
    /// every pattern a `play`, `measure` or `compare` step names is a pattern file beside the script
    /// that reads as one, or a built-in haptic (with the nearest name when it is
    /// neither); a `sweep` runs on an LRA and its range, with the defaults the device's
    /// actuator gives, holds OL_LRA_PERIOD codes; a `flash` step's image is there; a
    /// `compare` step's reference reads as a golden trace.
    ///
    /// `profiles`: the actuator on each bench device, by device name.
    public func check(against bench: BenchFile, profiles: [String: ActuatorProfile]) throws(ScriptError) {
        let directory = HILRunner.directory(of: file)
        for (t, test) in tests.enumerated() {
            // A test on a tag is checked against each device it selects.
            for device in bench.devices(matching: test.device) {
                try check(test, index: t, on: device, profile: profiles[device.name], directory: directory)
            }
        }
    }

    func check(_ test: TestCase, index t: Int, on device: BenchFile.Device, profile: ActuatorProfile?, directory: String) throws(ScriptError) {
        for (s, step) in test.steps.enumerated() {
            let key = "tests[\(t)].steps[\(s)].\(step.kind.rawValue)"
            func refuse(_ rule: String, _ subkey: String = "") -> ScriptError {
                ScriptError(file: file, line: step.valueLine ?? step.line, key: key + subkey, rule: rule)
            }
            switch step.action {
            case .play(let name), .measure(let name):
                do { _ = try PatternReference.load(name, relativeTo: directory) } catch { throw refuse(error.description) }
            case .compare(let reference, let pattern, _):
                do { _ = try PatternReference.load(pattern, relativeTo: directory) } catch { throw refuse(error.description, ".pattern") }
                do { _ = try StepCompare.reference(reference, relativeTo: directory) } catch { throw refuse(error.description, ".reference") }
            case .sweep(let options):
                guard let profile else { continue }
                guard profile.kind == .lra, let lra = profile.lra else {
                    throw refuse("\(profile.displayName) (on \(device.name)) is not an LRA: a sweep drives a resonator at OL_LRA_PERIOD")
                }
                let range = options.range(resonanceHz: lra.resonantFrequencyHz)
                guard (try? FrequencySweep.codes(fromHz: range.fromHz, toHz: range.toHz)) == nil else { continue }
                func end(_ given: Double?, _ name: String, _ hz: Double) -> String {
                    let text = "\(name) \(Limit.format((hz * 10).rounded() / 10)) Hz"
                    return given == nil ? "\(text) (the default for \(profile.displayName))" : text
                }
                let from = end(options.fromHz, "from", range.fromHz), to = end(options.toHz, "to", range.toHz)
                // Named at the end the script gave (the other being the default).
                guard range.fromHz < range.toHz else { throw refuse("\(from) is not below \(to)", options.fromHz != nil ? ".from" : ".to") }
                let periodStep = DRV2605Formulas.lraPeriodSeconds(code: 1) * 1e6
                throw refuse(
                    "no OL_LRA_PERIOD code lies between \(from) and \(to): its periods are \(Limit.format((periodStep * 100).rounded() / 100)) µs apart, so widen the range")
            case .flash(let image?):
                let path = HILRunner.path(image, relativeTo: directory)
                do { try FileReader.check(FilePath(path), limit: FirmwareImageFile.byteLimit) } catch { throw refuse(error.description) }
            default:
                break
            }
        }
    }
}
