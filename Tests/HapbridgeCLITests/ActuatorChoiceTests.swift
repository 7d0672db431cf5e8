import Foundation
import Testing
import TestSupport

/// Which actuator `play`, `measure`, `calibrate` and `rom` drive without `--actuator`
/// (`ActuatorChoice`): the simulated board's own; on a board, the one calibrated for
/// the serial it states; with neither, nothing is driven and the status is 2. Through
/// the built executable under the emulations, the chip's I2C log the witness.
@Suite("which actuator: never a guess on a board", .serialized)
struct ActuatorChoiceTests {
    typealias Device = OneDoorCalibrationTests.Device

    /// Every write the chip (0x5A) got, as (register, value), from an emulation's log.
    static func chipWrites(_ log: String) throws -> [(register: UInt8, value: UInt8)] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], o["event"] as? String == "i2c",
                o["op"] as? String == "w", o["address"] as? Int == 0x5A, o["ack"] as? Bool == true, let bytes = o["bytes"] as? String,
                bytes.count >= 4, let register = UInt8(bytes.prefix(2), radix: 16), let value = UInt8(bytes.dropFirst(2).prefix(2), radix: 16)
            else { return nil }
            return (register, value)
        }
    }

    /// The chip never left standby and was never told to drive: MODE (0x01) always with
    /// STANDBY (bit 6) set, no GO (0x0C ← 1), RTP_INPUT (0x02) only ever 0.
    static func neverDriven(_ writes: [(register: UInt8, value: UInt8)]) -> Bool {
        writes.allSatisfy { w in
            switch w.register {
            case 0x01: w.value & 0x40 != 0
            case 0x0C: w.value & 0x01 == 0
            case 0x02: w.value == 0
            default: true
            }
        }
    }

    @Test(
        "On a board with no calibration stored, play, measure, calibrate and rom without --actuator drive nothing and exit 2 naming the board and what to give",
        arguments: [Device.bridgeCore, .ft232h])
    func unknownActuatorIsRefused(device: Device) throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("config").path
        for command in [["play", "impact.heavy"], ["measure", "impact.heavy"], ["calibrate"], ["rom", "1"]] {
            let log = scratch.appendingPathComponent("\(command[0]).jsonl").path
            let run = try OneDoorCalibrationTests.run(device, command + ["--device", device.address], config: config, log: log)
            #expect(run.status == 2, "\(command): \(run.out)\n\(run.err)")
            let said = run.err
            #expect(said.contains("Error: which actuator is wired to board \(device.serial) (") && said.contains(") is unknown"), "\(said)")
            #expect(said.contains("give --actuator PROFILE (shipped: ") && said.contains("pmd-c10-100"), "\(said)")
            // calibrate is the way to keep one: the others say so.
            #expect(said.contains("`hapbridge calibrate --actuator PROFILE --device ") == (command[0] != "calibrate"), "\(said)")
            #expect(said.contains("; nothing was driven\n"), "\(said)")
            #expect(!run.out.contains("actuator: "), "nothing played: \(run.out)")
            let writes = try Self.chipWrites(log)
            #expect(Self.neverDriven(writes), "\(command): the chip was driven: \(writes)")
        }
    }

    @Test(
        "Calibrated once with --actuator, a board's play and rom without it take that profile (said, with the board's serial) and play in closed loop",
        arguments: [Device.bridgeCore, .ft232h])
    func storedCalibrationNamesTheActuator(device: Device) throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("config").path
        let calibrate = try OneDoorCalibrationTests.run(device, ["calibrate", "--device", device.address, "--actuator", "pmd-c10-100"], config: config)
        #expect(calibrate.status == 0, "\(calibrate.out)\n\(calibrate.err)")
        let play = try OneDoorCalibrationTests.run(device, ["play", "impact.heavy", "--device", device.address], config: config)
        // 4: played late on a loaded host; which actuator and which drive is what is checked.
        #expect(play.status == 0 || play.status == 4, "\(play.out)\n\(play.err)")
        #expect(play.out.contains("actuator: Precision Microdrives C10-100 (LRA), profile ") && play.out.contains("(calibrated on board \(device.serial))"), "\(play.out)")
        #expect(play.out.contains("drive: closed loop, calibrated "), "\(play.out)")
        let rom = try OneDoorCalibrationTests.run(device, ["rom", "1", "--device", device.address, "--no-calibrate"], config: config)
        #expect(rom.status == 0, "\(rom.out)\n\(rom.err)")
        #expect(rom.err.contains("note: actuator Precision Microdrives C10-100 (LRA), profile ") && rom.err.contains("(calibrated on board \(device.serial))"), "\(rom.err)")
    }

    @Test("A board with calibrations stored for two actuators: play without --actuator names both and drives nothing (exit 2)")
    func twoStoredActuatorsAreRefused() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("config").path
        let device = Device.bridgeCore
        let calibrate = try OneDoorCalibrationTests.run(device, ["calibrate", "--device", "usb", "--actuator", "pmd-c10-100"], config: config)
        #expect(calibrate.status == 0, "\(calibrate.out)\n\(calibrate.err)")
        // A second actuator's results beside it (the store lists a board's by file name).
        let store = config + "/hapbridge/calibration"
        try FileManager.default.copyItem(atPath: "\(store)/0001@pmd-c10-100.json", toPath: "\(store)/0001@vybronics-vg0832012.json")
        let log = scratch.appendingPathComponent("play.jsonl").path
        let play = try OneDoorCalibrationTests.run(device, ["play", "impact.heavy", "--device", "usb"], config: config, log: log)
        #expect(play.status == 2, "\(play.out)\n\(play.err)")
        #expect(play.err.contains("has calibrations stored for several actuators (pmd-c10-100, vybronics-vg0832012): say which is wired with --actuator"), "\(play.err)")
        #expect(Self.neverDriven(try Self.chipWrites(log)))
    }

    @Test("The simulated board needs no --actuator: it drives the actuator it simulates, and says so")
    func simulatedBoardDrivesItsOwn() throws {
        let run = try Hapbridge.run(["play", "impact.heavy", "--device", "sim"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("actuator: Precision Microdrives C10-100 (LRA), profile ") && run.out.contains("(the simulated board's actuator)"), "\(run.out)")
    }
}
