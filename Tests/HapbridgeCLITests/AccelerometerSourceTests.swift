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
}
