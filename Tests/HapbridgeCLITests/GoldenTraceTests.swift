import Foundation
import Testing

@testable import HapbridgeCLI

/// Golden traces through the built executable on the simulated board, in virtual time:
/// `measure --save-trace` saves a reference, `diff` judges another play against it.
/// Every fault is injected on the board's side (the supply, the part on its outputs,
/// the link), never told to the measuring command.
@Suite struct GoldenTraceTests {
    /// A 0.2 s buzz at full intensity: a rise with the closed loop's overdrive, a
    /// settled level and a brake, the shape every figure reads.
    static let buzz = Patterns.document([Patterns.continuous(at: 0, duration: 0.2, intensity: 1)])

    /// One bench: a scratch directory holding the pattern and a configuration in which
    /// the simulated board's C10-100 was calibrated (as a bench is before references
    /// are recorded: the drive is closed loop, and its overdrive meets the supply).
    final class Bench {
        let directory: URL
        var config: String { directory.appendingPathComponent("config").path }
        var pattern: String { directory.appendingPathComponent("buzz.ahap").path }

        init() throws {
            directory = try Hapbridge.scratchDirectory()
            try Data(GoldenTraceTests.buzz.utf8).write(to: URL(fileURLWithPath: pattern))
            let run = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: config)
            #expect(run.status == 0, "calibrate: \(run.err)")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Saves `measure`'s trace of the buzz with `extra` options; the file's path.
        func save(_ extra: [String], as name: String) throws -> String {
            let file = directory.appendingPathComponent(name).path
            let run = try Hapbridge.run(["measure", pattern, "--device", "sim", "--actuator", "pmd-c10-100", "--save-trace", file] + extra, configHome: config)
            #expect(run.status == 0, "measure \(extra): \(run.err)")
            #expect(run.out.contains("drive: closed loop"), "\(run.out)")
            return file
        }
    }

    /// `diff --json`'s status and its figures by name (value, verdict).
    static func diff(_ reference: String, _ trace: String, _ extra: [String] = []) throws -> (status: Int32, figures: [String: (Double?, String?)], err: String) {
        let run = try Hapbridge.run(["diff", reference, trace, "--json"] + extra)
        guard let object = try? JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any],
            let figures = object["figures"] as? [[String: Any]]
        else { return (run.status, [:], run.err) }
        var byName: [String: (Double?, String?)] = [:]
        for f in figures {
            if let name = f["name"] as? String { byName[name] = (f["value"] as? Double, f["verdict"] as? String) }
        }
        return (run.status, byName, run.err)
    }

    @Test("Two identical virtual-time plays differ by exactly 0 in every figure (model and LIS3DH at the same seed), and diff exits 0")
    func identicalRunsDifferByZero() throws {
        let bench = try Bench()
        for (label, extra) in [("model", [String]()), ("sensor", ["--accelerometer"])] {
            let a = try bench.save(extra, as: "\(label)-a.json")
            let b = try bench.save(extra, as: "\(label)-b.json")
            let result = try Self.diff(a, b)
            #expect(result.status == 0, "\(label): \(result.err)")
            for name in ["onset delta", "envelope error", "peak delta", "peak delta %"] {
                #expect(result.figures[name]?.0 == 0, "\(label): \(name) = \(String(describing: result.figures[name]))")
            }
        }
    }

    /// A lower supply: 2.7 V, a cell near empty. The closed loop's overdrive asks for
    /// up to the C10-100's 3.0 V clamp, which the output cannot swing past VDD; at 3.0 V
    /// and above the trace is the reference's (measured: every figure within the noise).
    static let lowSupplyVolts = "2.7"
    /// Another actuator: the Vybronics VG0832012, an LRA of the same 170–175 Hz class
    /// (an ERM in its place leaves the C10-100's drive barely moving it: −33 dB).
    static let otherActuator = "vybronics-vg0832012"

    /// A profile like the C10-100 with its resonance 9 % higher (175 → 190.75 Hz): the
    /// part in hand, not the one the host drives for.
    static func shiftedProfile(in directory: URL) throws -> String {
        let shipped = try String(contentsOfFile: Hapbridge.path("Hardware/actuators/pmd-c10-100.json"), encoding: .utf8)
        let shifted = shipped.replacingOccurrences(of: "\"id\": \"pmd-c10-100\"", with: "\"id\": \"c10-f0-plus-9\"")
            .replacingOccurrences(of: "\"resonantFrequencyHz\": 175", with: "\"resonantFrequencyHz\": 190.75")
        #expect(shifted.contains("190.75") && shifted.contains("c10-f0-plus-9"))
        let path = directory.appendingPathComponent("c10-f0-plus-9.json").path
        try Data(shifted.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Each fault against a reference recorded by a LIS3DH, each fault's play with other
    /// noise (another seed), so what catches it is the fault and not the noise's absence.
    /// The figures that moved past their limits (docs/golden-traces.md's table): the
    /// supply, onset and envelope; f0, onset and envelope; the other LRA, envelope and
    /// peak; the latency, onset. Each is held to one of them at least.
    @Test(
        "Each injected fault is caught (exit 12, a figure FAILs): a lower supply, f0 shifted 9 %, another actuator, 2 ms more link latency",
        arguments: ["supply", "f0", "actuator", "latency"])
    func injectedFaultsAreCaught(fault: String) throws {
        let bench = try Bench()
        let reference = try bench.save(["--accelerometer"], as: "reference.json")
        let (options, caughtBy): ([String], [String]) =
            switch fault {
            case "supply": (["--supply", Self.lowSupplyVolts], ["onset delta", "envelope error"])
            case "f0": (["--simulate-actuator", try Self.shiftedProfile(in: bench.directory)], ["onset delta", "envelope error"])
            case "actuator": (["--simulate-actuator", Self.otherActuator], ["envelope error", "peak delta"])
            // The simulated link's default is 0.5 ms each way (SimulatedBridgeDevice.Link).
            default: (["--link-latency", "2500"], ["onset delta"])
            }
        let trace = try bench.save(["--accelerometer", "--simulate-noise-seed", "7"] + options, as: "\(fault).json")
        let result = try Self.diff(reference, trace)
        #expect(result.status == 12, "\(fault): \(result.err) \(result.figures)")
        #expect(caughtBy.contains { result.figures[$0]?.1 == "FAIL" }, "\(fault): \(result.figures)")
    }

    @Test("No false alarm at the default limits over 20 plays whose LIS3DH noise differs (seeds 1…20) from the reference's")
    func noFalseAlarmOverTwentyNoisyRuns() throws {
        let bench = try Bench()
        let reference = try bench.save(["--accelerometer"], as: "reference.json")
        for seed in 1...20 {
            let trace = try bench.save(["--accelerometer", "--simulate-noise-seed", "\(seed)"], as: "run-\(seed).json")
            let result = try Self.diff(reference, trace)
            #expect(result.status == 0, "seed \(seed): \(result.figures) \(result.err)")
        }
    }
}
