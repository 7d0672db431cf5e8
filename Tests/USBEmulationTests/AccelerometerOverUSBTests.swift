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

        static func peak(_ o: [String: Any]) -> Double { figure("peak acceleration", o) }

        static func figure(_ name: String, _ o: [String: Any]) -> Double {
            (o["measurements"] as? [[String: Any]])?.first { $0["name"] as? String == name }?["value"] as? Double ?? 0
        }

        @Test("measure on a USB board with --accelerometer: every figure from the sensor; played on time, its RMS within 3 % + 5 mg of the model's on sim and its peak, one noisy sample, within 3 % + 40 mg", arguments: Emulate.backings)
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
            let (r, rm) = (Self.figure("RMS acceleration", usb), Self.figure("RMS acceleration", model))
            #expect(m > 0.1 && rm > 0.05, "model on sim: peak \(m) g, RMS \(rm) g")
            // The sensor reads the drive the chip got. A play the loaded host made late
            // (exit 4: the board started commands late) drove the actuator otherwise than
            // the model's on-time play, so only an on-time play is held to the model.
            if run.status == 0 {
                // RMS averages the sensor's noise out (idle and beside stress-ng: 0.1181–0.1194 g
                // against the model's 0.1187 g). The peak is one sample, the largest of ~680
                // each carrying the LIS3DH's noise (its datasheet density at 1344 Hz: ~5.7 mg
                // rms), so two runs' crests differ by several times that (0.262–0.310 g
                // against the model's 0.2765 g over 24 runs).
                #expect(abs(r - rm) <= 0.03 * rm + 0.005, "RMS: sensor over USB \(r) g, model on sim \(rm) g\n\(run)")
                #expect(abs(p - m) <= 0.03 * m + 0.040, "peak: sensor over USB \(p) g, model on sim \(m) g\n\(run)")
            }
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
