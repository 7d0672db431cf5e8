import Foundation
import Testing

/// `hapbridge sweep` run as a user would, on the simulated board.
@Suite struct SweepCommandTests {
    @Test("sweep --json --csv on the simulated C10-100: f0 and Q with their units, a point per code, the CSV's header and rows, and the plot")
    func sweepsAsJSONWithCSVAndPlot() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("sweep.csv").path, plot = directory.appendingPathComponent("sweep.svg").path
        let run = try Hapbridge.run(["sweep", "--device", "sim", "--actuator", "pmd-c10-100", "--json", "--csv", csv, "--plot", plot])
        #expect(run.status == 0, "\(run.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        #expect(object["schema"] as? String == "hapbridge-sweep/1" && object["source"] as? String == "model" && object["sourceDevice"] as? String == "simulated sled")
        let resonance = try #require(object["resonance"] as? [String: Any])
        let f0 = try #require(resonance["f0Hz"] as? Double), q = try #require(resonance["q"] as? Double)
        // MeasurementsTests.FrequencySweepTests pins these against the LRA model.
        #expect(abs(f0 - 175) < 1.75 && q > 10 && q < 12.5, "f0 \(f0) Hz, Q \(q)")
        let points = try #require(object["points"] as? [[String: Any]])
        #expect(points.count > 30 && points.allSatisfy { Set($0.keys) == ["frequencyHz", "accelerationG", "driveVoltsRMS", "gPerVolt"] })
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "frequency_hz,acceleration_g,drive_v_rms,g_per_v" && rows.count == points.count + 1)
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("f0 ") && svg.contains("−3 dB"))
        #expect(run.err.contains("sweep 1/") && run.err.contains(" Hz"), "progress on standard error: \(run.err)")
    }

    @Test("sweep prints a line per frequency, f0, Q, the −3 dB points and the fit; an ERM is refused with the reason (status 1)")
    func printsAndRefuses() throws {
        let run = try Hapbridge.run(["sweep", "--device", "sim", "--actuator", "pmd-c10-100", "--from", "160", "--to", "190"])
        #expect(run.status == 0, "\(run.err)")
        for text in ["resonance f0: 17", "Q (loaded, with the coil's back-EMF damping): ", "−3 dB points: 16", "fit: "] {
            #expect(run.out.contains(text), "\(text) in \(run.out)")
        }
        let erm = try Hapbridge.run(["sweep", "--device", "sim", "--actuator", "pmd-307-103"])
        #expect(erm.status == 1 && erm.err.contains("is not an LRA"), "\(erm.err)")
    }

    @Test("Bad options are usage errors that name the option: --from above --to, a level above 1, no actuator, a range OL_LRA_PERIOD cannot reach")
    func badOptions() throws {
        for (arguments, text) in [
            (["--actuator", "pmd-c10-100", "--from", "200", "--to", "150"], "--from 200.0 is not below --to 150.0"),
            (["--actuator", "pmd-c10-100", "--level", "1.5"], "--level 1.5"),
            (["--actuator", "pmd-c10-100", "--window", "nan"], "--window"),
            ([], "sweep needs --actuator"),
        ] {
            let run = try Hapbridge.run(["sweep", "--device", "sim"] + arguments)
            #expect(run.status == 2 && run.err.contains(text), "\(arguments): \(run.status) \(run.err)")
        }
        let far = try Hapbridge.run(["sweep", "--device", "sim", "--actuator", "pmd-c10-100", "--from", "20", "--to", "60"])
        #expect(far.status == 1 && far.err.contains("OL_LRA_PERIOD reaches"), "\(far.err)")
    }
}
