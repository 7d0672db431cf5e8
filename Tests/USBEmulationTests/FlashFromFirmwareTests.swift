import Foundation
import Testing

/// `hapbridge flash --device usb:1-1` against `hapbridge emulate bridge`: a board
/// running hapbridge firmware is sent into its bootloader through its link
/// (ENTER_BOOTLOADER), its Caterina is found on the same port, programmed and
/// verified, and the firmware it runs afterwards answers HELLO. Through the built
/// executable, on both backings.
@Suite("flash from running firmware: into Caterina on the same port and back")
struct FlashFromFirmwareTests {
    static let firmwareHex = Emulate.packageRoot + "/Firmware/build/hapbridge-32u4.hex"
    static var ready: Bool { FileManager.default.fileExists(atPath: firmwareHex) }

    @Test(
        "flash --device usb:1-1 on hapbridge firmware: ENTER_BOOTLOADER, Caterina (1b4f:9205) on port 1-1, written and verified, the firmware back on the port answering HELLO with its version",
        .enabled(if: ready, "make -C Firmware firmware"), arguments: Emulate.backings)
    func flashFromFirmware(_ backing: Emulate.Backing) throws {
        let h = Emulate.hapbridge
        let run = try Emulate.bridge(backing, [], ["sh", "-c", "lsusb; \(h) flash --device usb:1-1 --json; echo status=$?; lsusb; \(h) info"])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let report = lines.first { $0.hasPrefix("{") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(report?["ok"] as? Bool == true, "\(run)")
        #expect(report?["entry"] as? String == "enter-bootloader", "\(run)")
        #expect(report?["bootloader"] as? String == "caterina", "\(run)")
        #expect(report?["location"] as? String == "/dev/ttyACM0", "\(run)")
        #expect(report?["verifiedBytes"] as? Int == report?["writtenBytes"] as? Int, "\(run)")
        #expect(report?["previousFirmware"] as? String == "0.2" && report?["firmware"] as? String == "0.2", "\(run)")
        #expect(lines.contains("status=0"), "\(run)")
        // Before and after: the bridge firmware on the port; info answers HELLO.
        #expect(lines.filter { $0.contains("ID 1209:0001") }.count == 2, "\(run)")
        #expect(run.output.contains("firmware 0.2, protocol 1.1"), "\(run)")
        // The emulation says which identity the port had, in order.
        #expect(!run.output.contains("1b4f:9205"), "the bootloader is gone once the firmware is back: \(run)")
    }

    @Test(
        "a board with firmware 0.1 (protocol 1.0), which list says is older, is updated by the flash list names: firmware 0.2 answers after, and list no longer says it",
        .enabled(if: ready, "make -C Firmware firmware"))
    func updatesAnOlderBoard() throws {
        let h = Emulate.hapbridge
        let run = try Emulate.bridge(.core, ["--protocol", "1.0"], ["sh", "-c", "\(h) list; \(h) flash --device usb:1-1 2>/dev/null; echo status=$?; \(h) list"])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("usb:1-1") }.first?.contains("`hapbridge flash --device usb:1-1` updates it") == true, "\(run)")
        #expect(lines.contains("usb:1-1 now runs hapbridge firmware 0.2 (it ran 0.1)"), "\(run)")
        #expect(lines.contains("status=0"), "\(run)")
        let after = lines.filter { $0.hasPrefix("usb:1-1") }.last ?? ""
        #expect(after.contains(" 0.2 ") && after.contains(" 1.1 ") && !after.contains("updates it"), "\(run)")
    }

    @Test(
        "while the board waits in its bootloader, lsusb, hapbridge list and the control socket show Caterina on the board's own port",
        .enabled(if: ready, "make -C Firmware firmware"))
    func bootloaderIsListedOnThePort() throws {
        let h = Emulate.hapbridge
        // A lost answer keeps the board in its bootloader (see NeverBrickTests).
        let script = "\(h) emulate control fault silence 0x0000 >/dev/null; \(h) flash --device usb:1-1 2>/dev/null; echo status=$?; lsusb; \(h) list; \(h) emulate control list"
        let run = try Emulate.bridge(.core, [], ["sh", "-c", script])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("status=8"), "\(run)")
        #expect(run.output.contains("ID 1b4f:9205 SparkFun SparkFun Pro Micro"), "\(run)")
        #expect(!run.output.contains("ID 1209:0001"), "\(run)")
        #expect(run.output.contains("usb:1-1  caterina-bootloader"), "\(run)")
        #expect(run.output.contains("1-1 serial=0001 plugged node=/dev/ttyACM0 bootloader=caterina"), "\(run)")
    }

    /// A copy of the firmware's sources with another minor version, built in `dir`
    /// (`make -C DIR/Firmware firmware`): proof that what runs after a flash is the
    /// image flashed, not the ELF the emulation started with.
    static func variantImage(minor: Int, in dir: String) throws -> String {
        let firmware = Emulate.packageRoot + "/Firmware"
        let copy = dir + "/Firmware"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        // cp, not FileManager.copyItem: that keeps each file's group, which an ordinary
        // user may not set (EPERM on a checkout whose group is not the user's).
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = ["-R"] + ["Makefile", "core", "ports", "protocol"].map { firmware + "/" + $0 } + [copy + "/"]
        try cp.run()
        cp.waitUntilExit()
        try #require(cp.terminationStatus == 0, "cp -R of Firmware/ into \(copy) failed")
        let header = copy + "/protocol/include/hapbridge/firmware_version.h"
        let text = try String(contentsOfFile: header, encoding: .utf8)
        let changed = text.replacingOccurrences(of: "#define HB_FW_VERSION_MINOR 2u", with: "#define HB_FW_VERSION_MINOR \(minor)u")
        guard changed != text else { throw VariantError(description: "\(header) has no '#define HB_FW_VERSION_MINOR 2u' to change") }
        try changed.write(toFile: header, atomically: true, encoding: .utf8)
        let make = try Emulate.run(["/usr/bin/env", "make", "-s", "-C", copy, "build/hapbridge-32u4.hex"])
        guard make.status == 0 else { throw VariantError(description: "building the variant failed: \(make)") }
        return copy + "/build/hapbridge-32u4.hex"
    }

    struct VariantError: Error, CustomStringConvertible { var description: String }

    static var variantReady: Bool {
        ready && (Emulate.artifacts != nil || Emulate.simavrRequired) && ChildProcessPath.find("avr-gcc") != nil
    }

    @Test(
        "--firmware elf boots what was flashed: a variant image (firmware 0.9) answers HELLO as 0.9 after flash, and the carried image flashed back answers 0.2",
        .enabled(if: variantReady, "make -C Firmware firmware sim; gcc-avr"))
    func elfBootsTheFlashedImage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flash-variant-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let variant = try Self.variantImage(minor: 9, in: dir)
        let h = Emulate.hapbridge
        let script = """
            \(h) flash --device usb:1-1 \(variant) 2>/dev/null; echo status=$?
            \(h) info | grep '^firmware'
            \(h) flash --device usb:1-1 2>/dev/null; echo status=$?
            \(h) info | grep '^firmware'
            """
        let run = try Emulate.bridge(.elf, [], ["sh", "-c", script])
        #expect(run.status == 0, "\(run)")
        // The byte counts are the image's (pinned elsewhere); here: which image, where, what answers.
        let lines = run.output.split(separator: "\n").map { line in
            String(line).replacingOccurrences(of: #"\d+ bytes"#, with: "N bytes", options: .regularExpression)
        }
        #expect(lines == [
            "flashed N bytes of \(variant) on /dev/ttyACM0 (caterina, atmega32u4), verified N bytes; the application started",
            "usb:1-1 now runs hapbridge firmware 0.9 (it ran 0.2)", "status=0", "firmware 0.9, protocol 1.1",
            "flashed N bytes of \(Self.firmwareHex) on /dev/ttyACM1 (caterina, atmega32u4), verified N bytes; the application started",
            "usb:1-1 now runs hapbridge firmware 0.2 (it ran 0.9)", "status=0", "firmware 0.2, protocol 1.1",
        ], "\(run)")
    }
}
