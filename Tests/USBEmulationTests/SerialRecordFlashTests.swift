import Foundation
import Testing

/// A board whose firmware reports no serial gets one: `hapbridge flash --serial S`
/// writes the EEPROM record (protocol.h's `HB_SERIAL_RECORD_*`) through Caterina's
/// AVR109 'B' … 'E' after the application is verified, the emulated board's EEPROM
/// keeps it across the reset, and the firmware reports it after the reboot (HELLO,
/// iSerialNumber), so a calibration is stored under it. Through the built executable
/// against `emulate bridge` and `emulate caterina`, read back by avrdude.
@Suite("flash --serial: a serial record in the board's EEPROM")
struct SerialRecordFlashTests {
    static var ready: Bool { FlashFromFirmwareTests.ready }
    static var avrdude: Bool { ready && ChildProcessPath.find("avrdude") != nil }

    static func report(_ run: Emulate.Run) -> [String: Any]? {
        run.output.split(separator: "\n").first { $0.hasPrefix("{") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test(
        "a board with a blank EEPROM (UNSET on the core) is given BENCH-7 by flash --device usb:1-1 --serial BENCH-7, which writes the record and reads it back; after the reboot the firmware reads it, and info, list and usb:BENCH-7 find BENCH-7",
        .enabled(if: ready, "make -C Firmware firmware"), arguments: Emulate.backings)
    func givenSerialIsReportedAfterTheReboot(_ backing: Emulate.Backing) throws {
        let h = Emulate.hapbridge
        let run = try Emulate.bridge(
            backing, ["--serial", "UNSET"],
            ["sh", "-c", "\(h) list; \(h) flash --device usb:1-1 --serial BENCH-7 --json; echo status=$?; \(h) list; \(h) info --device usb:BENCH-7"])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        // The core board has no unique ID; the ELF's firmware falls back to the signature
        // row, which simavr does not model (its reads return flash bytes): not UNSET there.
        let before = lines.first { $0.hasPrefix("usb:1-1") } ?? ""
        #expect(backing == .core ? before.contains("UNSET") : !before.contains("BENCH-7"), "before: \(run)")
        #expect(lines.contains("status=0"), "\(run)")
        let report = Self.report(run)
        #expect(report?["serial"] as? String == "BENCH-7", "\(run)")
        #expect(report?["serialSource"] as? String == "given", "\(run)")
        #expect(report?["serialOutcome"] as? String == "written", "\(run)")
        #expect(report?["previousEEPROMSerial"] is NSNull, "\(run)")
        #expect(lines.filter { $0.hasPrefix("usb:1-1") }.last?.contains("BENCH-7") == true, "after: \(run)")
        #expect(run.output.contains("BENCH-7"), "info by usb:BENCH-7: \(run)")
    }

    @Test(
        "a calibration on a board that reported UNSET is stored under the serial flash --serial gave it",
        .enabled(if: ready, "make -C Firmware firmware"))
    func calibrationIsStoredUnderTheWrittenSerial() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-serial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let h = Emulate.hapbridge
        let script = """
            export XDG_CONFIG_HOME="\(dir.path)"
            \(h) calibrate --device usb:1-1 --actuator pmd-c10-100; echo before=$?
            \(h) flash --device usb:1-1 --serial LAB.2 2>/dev/null; echo status=$?
            \(h) calibrate --device usb:1-1 --actuator pmd-c10-100; echo after=$?
            """
        let run = try Emulate.bridge(.core, ["--serial", "UNSET"], ["sh", "-c", script])
        #expect(run.status == 0, "\(run)")
        // UNSET: refused, and the error says how to give the board a serial.
        #expect(run.output.contains("before=1"), "\(run)")
        #expect(run.errors.contains("--serial S"), "\(run)")
        #expect(run.output.contains("status=0") && run.output.contains("after=0"), "\(run)")
        let stored = dir.appendingPathComponent("hapbridge/calibration/LAB.2@pmd-c10-100.json").path
        #expect(FileManager.default.fileExists(atPath: stored), "\(run)")
    }

    @Test(
        "plain flash of a board that reported UNSET gives it HB- and 16 hex digits, says so, and info shows it; a second plain flash keeps it",
        .enabled(if: ready, "make -C Firmware firmware"))
    func derivedSerialForAnUnsetBoard() throws {
        let h = Emulate.hapbridge
        let run = try Emulate.bridge(
            .core, ["--serial", "UNSET"], ["sh", "-c", "\(h) flash --json; echo status=$?; \(h) flash --json 2>/dev/null; echo again=$?; \(h) list"])
        #expect(run.status == 0, "\(run)")
        let reports = run.output.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let derived = reports.first?["serial"] as? String ?? ""
        #expect(derived.hasPrefix("HB-") && derived.count == 19, "\(run)")
        #expect(derived.dropFirst(3).allSatisfy { $0.isHexDigit && !$0.isLowercase }, "\(run)")
        #expect(reports.first?["serialSource"] as? String == "derived", "\(run)")
        #expect(run.errors.contains("reported serial UNSET: giving it \(derived)"), "\(run)")
        // The board reports it now: the second flash derives nothing and writes nothing.
        #expect(reports.count == 2 && reports[1]["serial"] == nil, "\(run)")
        #expect(run.output.split(separator: "\n").last { $0.hasPrefix("usb:1-1") }?.contains(derived) == true, "\(run)")
    }

    @Test(
        "avrdude -c avr109 -U eeprom:r reads back the serial record hapbridge flash --serial wrote through Caterina",
        .enabled(if: avrdude, "make -C Firmware firmware; avrdude"))
    func avrdudeReadsTheRecordBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-serial-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = "\(Emulate.hapbridge) flash --port /dev/ttyACM0 --serial AV.109 && avrdude -c avr109 -p atmega32u4 -P /dev/ttyACM0 -U eeprom:r:\(dir)/ee.bin:r"
        let run = try Emulate.run([Emulate.hapbridge, "emulate", "caterina", "--", "sh", "-c", script])
        #expect(run.status == 0, "\(run)")
        let eeprom = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: dir + "/ee.bin"))) ?? Data())
        #expect(eeprom.count >= 11, "\(run)")
        #expect(Array(eeprom.prefix(11)) == Array("HBSN".utf8) + [6] + Array("AV.109".utf8), "\(run)")
        #expect(eeprom.dropFirst(11).allSatisfy { $0 == 0xFF }, "the rest of the EEPROM stays erased: \(run)")
    }

    @Test("flash --dry-run --serial says which bytes would go where in the EEPROM; a serial breaking the rule is a usage error")
    func dryRunAndRule() throws {
        let image = Emulate.packageRoot + "/Firmware/build/hapbridge-32u4.hex"
        guard FileManager.default.fileExists(atPath: image) else { return }
        let dry = try Emulate.run([Emulate.hapbridge, "flash", image, "--dry-run", "--serial", "B-1"])
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.output.contains("then the serial number B-1 to the EEPROM: 8 bytes at EEPROM 0...7 (48 42 53 4E 03 42 2D 31)"), "\(dry)")
        let bad = try Emulate.run([Emulate.hapbridge, "flash", image, "--dry-run", "--serial", "has space"])
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.errors.contains("--serial") && bad.errors.contains("byte 3"), "\(bad)")
        let unset = try Emulate.run([Emulate.hapbridge, "flash", image, "--dry-run", "--serial", "UNSET"])
        #expect(unset.status == 2 && unset.errors.contains("what a board without a serial reports"), "\(unset)")
    }
}
