import Foundation
import Testing

/// `hapbridge diagnose|calibrate|rom --device ftdi` and `hapbridge list` as COMMAND under
/// `hapbridge emulate ft232h`: the CLI's own path to an FT232H.
@Suite("hapbridge commands on an emulated FT232H", .serialized)
struct FT232HCommandTests {
    static let hapbridge = EmulatedFT232H.hapbridge

    @Test("diagnose --device ftdi runs the chip's diagnostic through the firmware core hosted for the FT232H (MPSSE I2C) and passes with an LRA")
    func diagnose() throws {
        let run = try EmulatedFT232H.run([], [Self.hapbridge, "diagnose", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("device: FT232H FT0001 (firmware core hosted in process, MPSSE I2C at 400 kHz"), "\(run)")
        #expect(run.output.contains("chip: DRV2605L (STATUS 0xE0, DEVICE_ID 7)"), "\(run)")
        #expect(run.output.contains("diagnostic: PASS"), "\(run)")
    }

    @Test("calibrate --device ftdi:SERIAL auto-calibrates over MPSSE I2C and stores the results under the FT232H's serial; play on it then drives closed loop")
    func calibrate() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-ft232h-cal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        let environment = ["XDG_CONFIG_HOME": config.path]
        let run = try EmulatedFT232H.run(
            ["--serial", "FTX42"], [Self.hapbridge, "calibrate", "--device", "ftdi:FTX42", "--actuator", "pmd-c10-100"], environment: environment)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("auto-calibration: PASS"), "\(run)")
        let stored = config.appendingPathComponent("hapbridge/calibration/FTX42@pmd-c10-100.json").path
        #expect(run.output.contains("stored for `play` (closed loop): \(stored)"), "\(run)")
        #expect(FileManager.default.fileExists(atPath: stored))
        let play = try EmulatedFT232H.run(
            ["--serial", "FTX42"], [Self.hapbridge, "play", "ios.impact.heavy", "--device", "ftdi:FTX42", "--actuator", "pmd-c10-100"], environment: environment)
        #expect(play.playedToTheEnd, "\(play)")
        #expect(play.output.contains("drive: closed loop, calibrated"), "\(play)")
    }

    @Test("--i2c-khz 100 runs the FT232H's I2C at 100 kHz (diagnose passes; the summary says so); other rates and other devices are refused before anything opens")
    func hundredKilohertz() throws {
        let run = try EmulatedFT232H.run([], [Self.hapbridge, "diagnose", "--device", "ftdi", "--i2c-khz", "100", "--actuator", "pmd-c10-100"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("MPSSE I2C at 100 kHz"), "\(run)")
        #expect(run.output.contains("diagnostic: PASS"), "\(run)")
        let odd = try EmulatedFT232H.run([], [Self.hapbridge, "diagnose", "--device", "ftdi", "--i2c-khz", "250"])
        #expect(odd.status == 2 && odd.errors.contains("--i2c-khz must be 400 or 100, not 250"), "\(odd)")
        let sim = try EmulatedFT232H.run([], [Self.hapbridge, "diagnose", "--device", "sim", "--i2c-khz", "100"])
        #expect(sim.status == 2 && sim.errors.contains("--i2c-khz applies to an adapter whose I2C this host drives (--device ftdi[:SERIAL]); sim keeps its own bus at 400 kHz"), "\(sim)")
    }

    @Test("rom 1 --device ftdi plays a ROM effect: GO clears by itself")
    func romEffect() throws {
        let run = try EmulatedFT232H.run([], [Self.hapbridge, "rom", "1", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("GO (0x0C) cleared by the chip after"), "\(run)")
    }

    @Test("an FT232H serial that is not plugged in is one line with libftdi's words and what to do")
    func wrongSerial() throws {
        let run = try EmulatedFT232H.run([], [Self.hapbridge, "diagnose", "--device", "ftdi:NOPE"])
        #expect(run.status == 1, "\(run)")
        #expect(run.errors.contains("Error: ftdi:NOPE: ftdi_usb_open_desc failed: device not found (libftdi code -3)"), "\(run)")
    }

    @Test("list shows the FT232H by port with its serial and the --device address that reaches it")
    func list() throws {
        let run = try EmulatedFT232H.run([], [Self.hapbridge, "list"])
        #expect(run.status == 0, "\(run)")
        let row = run.output.split(separator: "\n").first { $0.contains("ft232h") }.map(String.init) ?? ""
        #expect(row.contains("usb:1-1") && row.contains("FT0001") && row.contains("--device ftdi:FT0001"), "\(run)")
    }
}
