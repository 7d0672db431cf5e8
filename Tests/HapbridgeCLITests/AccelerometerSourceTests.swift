import Foundation
import Testing

/// The simulated board with a LIS3DH fitted (`--accelerometer`), as a user would run it:
/// `info` lists the sensor, and `sweep` says its figures came from it and agree with
/// the model's.
@Suite struct AccelerometerSourceTests {
    @Test("info on sim with --accelerometer lists the accelerometer capability and the sensor at 0x18 (text and --json); without it, neither")
    func infoListsTheSensor() throws {
        let text = try Hapbridge.run(["info", "--device", "sim", "--accelerometer"])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains(", accelerometer\n") || text.out.contains(", accelerometer,"), "\(text.out)")
        #expect(text.out.contains("accelerometer: LIS3DH at 0x18 (capability 11), streamed at 1344 Hz, ±4 g"), "\(text.out)")
        let json = try Hapbridge.run(["info", "--device", "sim", "--accelerometer", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let sensor = try #require(object["accelerometer"] as? [String: Any])
        #expect(sensor["part"] as? String == "LIS3DH" && sensor["address"] as? Double == 0x18 && sensor["rateHz"] as? Double == 1344)
        #expect((object["capabilities"] as? [String])?.contains("accelerometer") == true)
        let bare = try Hapbridge.run(["info", "--device", "sim", "--json"])
        let bareObject = try #require(try JSONSerialization.jsonObject(with: Data(bare.stdout)) as? [String: Any])
        #expect(bareObject["accelerometer"] is NSNull && (bareObject["capabilities"] as? [String])?.contains("accelerometer") == false)
    }

    /// At each frequency the sweep records 100 ms, so the sensor gives 134 samples a
    /// point at phases that walk round the cycle: its amplitudes are the model's within
    /// a few per cent, and f0 moves by less than a code's step (3 Hz near 175 Hz).
    @Test("sweep on sim with --accelerometer: source sensor, and f0 within 1.75 Hz of the model's sweep")
    func sweepWithTheSensor() throws {
        func sweep(_ extra: [String]) throws -> [String: Any] {
            let run = try Hapbridge.run(["sweep", "--device", "sim", "--actuator", "pmd-c10-100", "--from", "150", "--to", "200", "--json"] + extra)
            #expect(run.status == 0, "\(run.err)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        }
        let sensor = try sweep(["--accelerometer"]), model = try sweep([])
        #expect(sensor["source"] as? String == "sensor" && sensor["sourceDevice"] as? String == "LIS3DH")
        #expect(model["source"] as? String == "model")
        let f0 = (sensor: (sensor["resonance"] as? [String: Any])?["f0Hz"] as? Double ?? 0, model: (model["resonance"] as? [String: Any])?["f0Hz"] as? Double ?? 0)
        #expect(abs(f0.sensor - f0.model) < 1.75, "f0: sensor \(f0.sensor) Hz, model \(f0.model) Hz")
    }

    @Test("--accelerometer is the simulated board's: refused on another device, and on emulate's noise board")
    func refusedWhereItDoesNotApply() throws {
        let noise = try Hapbridge.run(["emulate", "bridge", "--firmware", "noise", "--accelerometer", "--", "true"])
        #expect(noise.status == 64 || noise.status == 2, "status \(noise.status): \(noise.err)")
        #expect(noise.err.contains("--accelerometer needs --firmware core or elf"), "\(noise.err)")
    }

    /// The emulated sensor mounted with the sled's motion on Z (a coin LRA's), read on
    /// Z and on X: the figures say the axis they read, the motion is on Z, and X reads
    /// only the sensor's noise. Every sample is accounted for: what came and what was
    /// lost add up to the recording's span at the sensor's rate.
    @Test("--axis picks the sensor's axis: mounted on Z (emulate --accelerometer-axis z), --axis z reads the motion and says Z, --axis x reads noise and says X; samples plus lost fill the span")
    func axisIsChosenAndSaid() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let buzz = try Patterns.write(Patterns.document([Patterns.continuous(at: 0, duration: 0.3, intensity: 1)]), named: "buzz.ahap", in: directory)
        func measure(_ axis: String) throws -> [String: Any] {
            let run = try Hapbridge.run([
                "emulate", "bridge", "--firmware", "core", "--accelerometer", "--accelerometer-axis", "z", "--",
                Hapbridge.executable, "measure", buzz, "--device", "usb", "--actuator", "pmd-c10-100", "--axis", axis, "--json",
            ])
            // 4: played late, which a loaded host may cause; the figures are still there.
            #expect(run.signal == nil && (run.status == 0 || run.status == 4), "status \(run.status), signal \(run.signal.map(String.init) ?? "none"): \(run.err)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any], "\(run.out)")
        }
        func peak(_ o: [String: Any]) -> Double? {
            (o["measurements"] as? [[String: Any]])?.first { $0["name"] as? String == "peak acceleration" }?["value"] as? Double
        }
        let z = try measure("z"), x = try measure("x")
        #expect(z["axis"] as? String == "z" && x["axis"] as? String == "x")
        for o in [z, x] {
            let samples = o["samples"] as? Double ?? 0, lost = o["lostSamples"] as? Double ?? -1
            let holes = (o["losses"] as? [[String: Any]])?.reduce(0.0) { $0 + ($1["samples"] as? Double ?? 0) } ?? -1
            #expect(lost == holes, "lostSamples \(lost) is not the sum of the holes \(holes)")
            // 0.3 s of drive and 0.2 s of tail at 1344 Hz: over 600 samples, whatever was lost.
            #expect(samples + lost > 600, "\(samples) samples, \(lost) lost")
        }
        // The motion (~0.7 g peak on the C10-100) is on Z; X reads the sensor's ~6 mg noise.
        if let pz = peak(z), let px = peak(x) { #expect(pz > 0.3 && px < 0.1, "peak on Z \(pz) g, on X \(px) g") }
    }

    @Test("--axis takes x, y or z only: anything else is a usage error naming the choices")
    func axisRefusesOtherNames() throws {
        let run = try Hapbridge.run(["measure", "ios.impact.heavy", "--device", "sim", "--axis", "w"])
        #expect(run.status == 64 || run.status == 2, "status \(run.status)")
        #expect(run.err.contains("--axis") && run.err.contains("x") && run.err.contains("z"), "\(run.err)")
        let mounting = try Hapbridge.run(["emulate", "bridge", "--accelerometer-axis", "z", "--", "true"])
        #expect(mounting.err.contains("--accelerometer-axis needs --accelerometer"), "\(mounting.err)")
    }
}
