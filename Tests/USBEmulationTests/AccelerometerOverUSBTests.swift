import Foundation
import Testing

/// A LIS3DH on the emulated bridge board's bus (`emulate bridge --accelerometer`),
/// through real libusb: the firmware (the core in process, or the ELF under simavr, whose
/// I2C reaches the same sensor model) streams it, and `hapbridge` on the USB board
/// reports its figures as the sensor's, close to what the model gives on `sim`.
extension EmulatedBoards {
    @Suite
    struct AccelerometerOverUSBTests {
        static let hapbridge = Emulate.hapbridge

        /// 0.3 s at full intensity: the sustained level's crest is sampled at phases that
        /// walk round the cycle (AccelerometerTelemetryTests: within 3 % + 25 mg).
        static func buzz(in dir: URL) throws -> String {
            let path = dir.appendingPathComponent("buzz.ahap").path
            try #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":0.3,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        static func object(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
        }

        static func peak(_ o: [String: Any]) -> Double {
            (o["measurements"] as? [[String: Any]])?.first { $0["name"] as? String == "peak acceleration" }?["value"] as? Double ?? 0
        }

        @Test("measure on a USB board with --accelerometer: every figure from the sensor, the peak within 3 % + 25 mg of the model's on sim", arguments: Emulate.backings)
        func measureUsesTheSensor(_ backing: Emulate.Backing) throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-accel-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let buzz = try Self.buzz(in: dir)
            let run = try Emulate.bridge(backing, ["--accelerometer"], [Self.hapbridge, "measure", buzz, "--device", "usb", "--actuator", "pmd-c10-100", "--json"])
            #expect(run.ranToTheEnd, "\(run)")
            let usb = try Self.object(run.output)
            #expect(usb["source"] as? String == "sensor" && usb["sourceDevice"] as? String == "LIS3DH", "\(run)")
            #expect(abs((usb["sampleRateHz"] as? Double ?? 0) - 1344) < 2 && (usb["samples"] as? Double ?? 0) > 500, "\(run)")
            // Every figure, unless the sensor lost samples where one is read (a FIFO overrun
            // when the loaded host reads the board late): then that figure says so, with
            // the loss in the record, and is never read across the hole.
            let unmeasured = (usb["unmeasured"] as? [String]) ?? []
            let lost = (usb["lostSamples"] as? Double ?? 0) > 0
            #expect(unmeasured.isEmpty || (lost && unmeasured.allSatisfy { $0.contains(": the sensor lost ") }), "\(run)")
            let sim = try Emulate.run([Self.hapbridge, "measure", buzz, "--device", "sim", "--json"])
            let model = try Self.object(sim.output)
            #expect(model["source"] as? String == "model")
            let (p, m) = (Self.peak(usb), Self.peak(model))
            #expect(m > 0.1 && abs(p - m) <= 0.03 * m + 0.025, "peak: sensor over USB \(p) g, model on sim \(m) g")
        }

        @Test("info on a USB board with --accelerometer lists the capability and the LIS3DH at 0x18; lsusb -v still reads the board", arguments: Emulate.backings)
        func infoAndLsusb(_ backing: Emulate.Backing) throws {
            let info = try Emulate.bridge(backing, ["--accelerometer"], [Self.hapbridge, "info", "--device", "usb"])
            #expect(info.status == 0 && info.output.contains("accelerometer: LIS3DH at 0x18 (capability 11)"), "\(info)")
            let lsusb = try Emulate.bridge(backing, ["--accelerometer"], ["lsusb", "-v", "-d", "1209:0001"])
            #expect(lsusb.status == 0 && lsusb.output.contains("idVendor           0x1209"), "\(lsusb)")
        }
    }
}
