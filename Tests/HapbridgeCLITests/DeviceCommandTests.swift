import Foundation
import Testing

@testable import HapbridgeCLI

/// Device addresses, `list`, `info` and `--version` without hardware (the emulated-USB
/// suites in USBEmulationTests run the same commands against boards on libusb).
@Suite struct DeviceCommandTests {
    @Test("--version names the host version, the protocol it speaks and the boards it talks to")
    func versionSaysWhatItSpeaks() throws {
        let run = try Hapbridge.run(["--version"])
        #expect(run.status == 0)
        #expect(run.out.contains("hapbridge \(HapbridgeVersion.host)") && run.out.contains("bridge protocol 1.1"))
        #expect(run.out.contains("1209:0001"))
    }

    @Test("with no board plugged in, a hardware command says it uses the simulated board, in one line on standard error")
    func noBoardFallsBackToTheSimulatedBoardWithANotice() throws {
        let run = try Hapbridge.run(["diagnose", "--actuator", "pmd-c10-100"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.errLines == ["note: no bridge board found on USB: using the simulated board (say --device sim to silence this)"])
        #expect(run.out.contains("device: simulated bridge board"))
        let quiet = try Hapbridge.run(["diagnose", "--device", "sim", "--actuator", "pmd-c10-100"])
        #expect(quiet.err.isEmpty)
    }

    @Test("a malformed --device is a usage error naming the address and the rule; a board that is not there is a failure")
    func badAddressesAreRefused() throws {
        for bad in ["bluetooth", "usb:0-1", "usb:1-", "sim:2"] {
            let run = try Hapbridge.run(["info", "--device", bad])
            #expect(run.status == 2 && run.err.contains("bad device address"), "\(bad): \(run.err)")
        }
        let missing = try Hapbridge.run(["info", "--device", "usb:NOPE"])
        #expect(missing.status == 1 && missing.err.contains("usb:NOPE"), "\(missing.err)")
        let ftdi = try Hapbridge.run(["info", "--device", "ftdi"])
        #expect(ftdi.status == 1 && ftdi.err.contains("FT232H"), "\(ftdi.err)")
    }

    @Test("--device is parsed once, by ArgumentParser, into the address it names; absent, the choice is left to the rule")
    func deviceOptionIsATypedAddress() throws {
        #expect(try DeviceOptions.parse(["--device", "usb:3-1.4"]).address == .usb(.port(bus: 3, ports: [1, 4])))
        #expect(try DeviceOptions.parse(["--device", "usb:serial=1-2"]).address == .usb(.serial("1-2")))
        #expect(try DeviceOptions.parse(["--device", "sim"]).address == .simulated)
        #expect(try DeviceOptions.parse([]).address == nil)
        do {
            _ = try DeviceOptions.parse(["--device", "usb:1-"])
            Issue.record("usb:1- must not parse")
        } catch {
            #expect(
                DeviceOptions.message(for: error)
                    == "bad device address \"usb:1-\": a port path is BUS-PORT[.PORT...] with numbers 1-255, e.g. usb:1-2 or usb:3-1.4")
        }
    }

    @Test("a malformed --device is said in the address's own words, cut past 64 characters with its length, and the usage follows")
    func longBadAddressIsCutInTheUsageError() throws {
        let text = "usb:" + String(repeating: "x", count: 1000)
        let run = try Hapbridge.run(["play", "impact.heavy", "--device", text])
        #expect(run.status == 2)
        #expect(
            run.errLines.first
                == "Error: bad device address \"\(text.prefix(64))…\" (1004 characters): a serial number is 1-20 characters of 0-9 A-Z a-z - . _",
            "\(run.err)")
        #expect(run.err.contains("Usage: hapbridge play") && !run.err.contains(String(repeating: "x", count: 100)), "\(run.err)")
    }

    @Test("list on a machine without boards says so, in text and as JSON with its schema")
    func listWithoutBoards() throws {
        let text = try Hapbridge.run(["list"])
        #expect(text.status == 0 && text.out.contains("no bridge board found on USB"))
        let json = try Hapbridge.run(["list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        #expect(object?["schema"] as? String == "hapbridge-list/1" && (object?["boards"] as? [Any])?.isEmpty == true)
    }

    @Test("info on the simulated board: identity, serial, protocol 1.1 and the chip's registers, as JSON")
    func infoOnTheSimulatedBoard() throws {
        let run = try Hapbridge.run(["info", "--device", "sim", "--json"])
        #expect(run.status == 0, "\(run.err)")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        #expect(info["schema"] as? String == "hapbridge-info/1" && info["serial"] as? String == "SIMULATED")
        #expect(info["protocol"] as? String == "1.1" && info["chip"] as? String == "DRV2605L" && info["usb"] is NSNull)
        #expect((info["registers"] as? [String: Any])?["STATUS"] != nil)
        let absent = try Hapbridge.run(["info", "--device", "sim", "--simulate-fault", "absent"])
        #expect(absent.status == 0 && absent.out.contains("chip: none answered at 0x5A"), "\(absent.out)")
    }

    @Test("calibrate on the simulated board stores its results for play, which then drives the LRA in closed loop")
    func calibrationIsStoredAndUsed() throws {
        let config = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        let before = try Hapbridge.run(["play", "impact.heavy", "--device", "sim"], configHome: config.path)
        #expect(before.out.contains("drive: open loop (no stored calibration"), "\(before.out)")
        let calibrate = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: config.path)
        #expect(calibrate.status == 0 && calibrate.out.contains("stored for `play` (closed loop)"), "\(calibrate.out)")
        #expect(FileManager.default.fileExists(atPath: config.path + "/hapbridge/calibration/SIMULATED@pmd-c10-100.json"))
        let play = try Hapbridge.run(["play", "impact.heavy", "--device", "sim"], configHome: config.path)
        #expect(play.status == 0 && play.out.contains("drive: closed loop, calibrated"), "\(play.out)")
        let noSave = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100", "--no-save"])
        #expect(noSave.status == 0 && !noSave.out.contains("stored"))
    }

    @Test("options only the simulated board takes are refused for a bridge board")
    func simulatorOptionsNeedTheSimulatedBoard() throws {
        let run = try Hapbridge.run(["play", "impact.heavy", "--device", "usb", "--realtime"])
        #expect(run.status == 2 && run.err.contains("apply to the simulated board"), "\(run.err)")
    }
}
