import FirmwareImage
import Foundation
import Testing

/// `hapbridge emulate dfu` against the public client, Debian's dfu-programmer 0.6.1,
/// and against hapbridge's own `AtmelDFUProgrammer` (through dfu-flash-probe): what
/// both write is what the flash then holds, byte for byte, and the bootloader section
/// stays out of reach.
@Suite("Atmel DFU bootloader emulation", .serialized)
struct DFUEmulationTests {
    let part = AVRPart.atmega32u4

    /// The firmware hex, or nil (with a note) when it is not built.
    func firmwareHex() -> String? {
        if FileManager.default.fileExists(atPath: DFURun.firmwareHex) { return DFURun.firmwareHex }
        let note: Comment = "\(DFURun.firmwareHex) not built: run `make -C Firmware firmware`"
        if DFURun.firmwareRequired { Issue.record(note) } else { print("skipped: \(note)") }
        return nil
    }

    @Test("dfu-programmer erases, flashes the firmware hex (with its own verify), dumps it back and starts it; the flash holds the image")
    func dfuProgrammerFlashesFirmware() throws {
        guard let hex = firmwareHex() else { return }
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate(
            "dfu-programmer atmega32u4 erase && dfu-programmer atmega32u4 flash '\(hex)' && dfu-programmer atmega32u4 dump > readback.bin && dfu-programmer atmega32u4 start",
            in: dir)
        #expect(run.status == 0, "\(run)")
        let image = try DFURun.applicationBytes(ofHex: hex, length: part.applicationBytes, in: dir)
        let readBack = [UInt8](try Data(contentsOf: dir.appendingPathComponent("readback.bin")))
        #expect(readBack == image, "dfu-programmer dump differs from the image")
        #expect(Array(run.flash.prefix(part.applicationBytes)) == image, "the emulated flash differs from the image")
        #expect(run.errors.contains("dfu-programmer") == false, "\(run)")
        #expect(run.errors.contains("1 erase(s)"), "\(run)")
        #expect(run.errors.contains("the bootloader started the application and left the bus"), "\(run)")
    }

    @Test("dfu-programmer reads the signature 1E 95 87 and the bootloader version through FLIP's read configuration")
    func signatureThroughReadConfiguration() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate(
            "for w in manufacturer family product-name bootloader-version; do dfu-programmer atmega32u4 get $w || exit 1; done", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("Manufacturer Code: 0x1e"), "\(run)")
        #expect(run.output.contains("Family Code: 0x95"), "\(run)")
        #expect(run.output.contains("Product Name: 0x87"), "\(run)")
        #expect(run.output.contains("Bootloader Version: 0x"), "\(run)")
    }

    @Test("hapbridge's DFU programmer reads the part, erases, writes the firmware hex, verifies by read-back and starts it; the flash holds the image")
    func programmerFlashesFirmware() throws {
        guard let hex = firmwareHex() else { return }
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate("'\(DFURun.probe)' flash '\(hex)'", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.record("part") == ["name": "atmega32u4", "location": "1-1"], "\(run)")
        #expect(run.record("verify")["bytes"] == String(part.applicationBytes), "\(run)")
        #expect(run.record("start")["total_ms"] != nil, "\(run)")
        let image = try DFURun.applicationBytes(ofHex: hex, length: part.applicationBytes, in: dir)
        #expect(Array(run.flash.prefix(part.applicationBytes)) == image, "the emulated flash differs from the image")
        #expect(run.errors.contains("the bootloader started the application and left the bus"), "\(run)")
    }

    @Test("hapbridge flash with no IMAGE writes the firmware it carries to the one DFU bootloader on USB, verified, and says so in its JSON report; --device names it by port")
    func hapbridgeFlashWritesTheCarriedFirmware() throws {
        guard let hex = firmwareHex() else { return }
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate("'\(DFURun.hapbridge)' flash --json", in: dir)
        #expect(run.status == 0, "\(run)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run)")
        #expect(report["schema"] as? String == "hapbridge-flash/1" && report["ok"] as? Bool == true, "\(run)")
        #expect(report["bootloader"] as? String == "atmel-dfu" && report["location"] as? String == "1-1", "\(run)")
        #expect(report["image"] as? String == hex, "the carried image is the checkout's build: \(run)")
        #expect((report["verifiedBytes"] as? Double ?? 0) >= (report["imageBytes"] as? Double ?? 1), "\(run)")
        let image = try DFURun.applicationBytes(ofHex: hex, length: part.applicationBytes, in: dir)
        #expect(Array(run.flash.prefix(part.applicationBytes)) == image, "the emulated flash differs from the image")
        let byPort = try DFURun.emulate("'\(DFURun.hapbridge)' flash --device usb:1-1 --verify-only '\(hex)'", in: dir)
        // A fresh factory bootloader is in its security mode: it allows reads only after a
        // chip erase, so verify-only (which erases nothing) says so and changes nothing.
        #expect(byPort.status == 1 && byPort.errors.contains("read protected") && byPort.errors.contains("0 erase(s)"), "\(byPort)")
        let nowhere = try DFURun.emulate("'\(DFURun.hapbridge)' flash --device usb:1-4 '\(hex)'", in: dir)
        #expect(nowhere.status == 6 && nowhere.errors.contains("no Atmel DFU bootloader"), "\(nowhere)")
    }

    @Test("a write into the bootloader section is refused with errWRITE and changes nothing there; the bootloader still answers dfu-programmer")
    func bootloaderSectionRefused() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bootloader = String(part.bootloaderStart, radix: 16)
        let run = try DFURun.emulate(
            "'\(DFURun.probe)' write-at 0x\(bootloader); echo probe=$?; dfu-programmer atmega32u4 get family", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("probe=1"), "\(run)")
        let error = run.record("error")
        #expect(error["kind"] == "protocol", "\(run)")
        #expect(error["message"]?.contains("writing 0x7000...0x707F") == true, "\(run)")
        #expect(error["message"]?.contains("errWRITE") == true, "\(run)")
        #expect(run.output.contains("Family Code: 0x95"), "after the refusal: \(run)")
        #expect(run.flash.count == part.flashBytes)
        #expect(run.flash[part.bootloaderStart...].allSatisfy { $0 == 0xFF }, "the bootloader section changed")
        #expect(run.errors.contains("1 command(s) refused"), "\(run)")
    }

    @Test("before a chip erase the bootloader refuses reads (errFILE) and writes (errWRITE), as Atmel's factory bootloader does; after one it takes them")
    func securityModeUntilErase() throws {
        guard let hex = firmwareHex() else { return }
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate(
            """
            dfu-programmer atmega32u4 flash '\(hex)'; echo flash=$?
            dfu-programmer atmega32u4 dump > /dev/null; echo dump=$?
            '\(DFURun.probe)' read 0 128; echo probe=$?
            dfu-programmer atmega32u4 erase && dfu-programmer atmega32u4 flash '\(hex)' && '\(DFURun.probe)' read 0 128
            """, in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("flash=1") && run.output.contains("dump=1") && run.output.contains("probe=1"), "\(run)")
        #expect(run.errors.contains("The device is read protected."), "\(run)")
        #expect(run.record("error")["message"]?.contains("errFILE") == true, "\(run)")
        #expect(run.record("error")["message"]?.contains("only after a chip erase") == true, "\(run)")
        #expect(run.record("read")["bytes"] == "128", "\(run)")
        let image = try DFURun.applicationBytes(ofHex: hex, length: part.applicationBytes, in: dir)
        #expect(Array(run.flash.prefix(part.applicationBytes)) == image)
    }

    @Test("the programmer names the bootloader it found when the chosen port has none, and the flash is untouched")
    func programmerChoosesDevice() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate("'\(DFURun.probe)' --device usb:1-2 signature; echo probe=$?; '\(DFURun.probe)' --device usb:1-1 signature", in: dir)
        #expect(run.output.contains("probe=1"), "\(run)")
        #expect(run.record("error")["kind"] == "no-bootloader", "\(run)")
        #expect(run.record("error")["message"]?.contains("at usb:1-2 (found at 1-1)") == true, "\(run)")
        #expect(run.record("part")["name"] == "atmega32u4", "\(run)")
        #expect(run.flash.allSatisfy { $0 == 0xFF })
    }

    @Test("emulate dfu exits with COMMAND's status and lists the bootloader to lsusb as Atmel's 03eb:2ff4")
    func commandStatusAndIdentity() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate("lsusb -d 03eb:2ff4; exit 7", in: dir)
        #expect(run.status == 7, "\(run)")
        #expect(run.output.contains("Bus 001 Device 002: ID 03eb:2ff4 ATMEL ATm32U4DFU"), "\(run)")
        #expect(run.errors.contains("0 erase(s), 0 page(s) written"), "\(run)")
    }

    @Test("a full 28 KiB application: dfu-programmer and hapbridge's programmer each erase, write and verify it in the same run (times printed)")
    func fullApplicationTimes() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Every byte of the application section, none 0xFF-only pages: a pattern from a
        // multiplicative hash, the same every run.
        let image = (0..<part.applicationBytes).map { i in UInt8(truncatingIfNeeded: (UInt32(i) &* 2_654_435_761) >> 13) }
        try DFURun.intelHex(image).write(to: dir.appendingPathComponent("full.hex"), atomically: true, encoding: .utf8)
        let run = try DFURun.emulate(
            """
            t0=$(date +%s%N)
            dfu-programmer atmega32u4 erase && dfu-programmer atmega32u4 flash full.hex || exit 10
            t1=$(date +%s%N)
            echo "dfuprogrammer ms=$(( (t1 - t0) / 1000000 ))"
            '\(DFURun.probe)' flash full.hex || exit 11
            """, in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.record("write")["bytes"] == String(part.applicationBytes), "\(run)")
        #expect(run.flash.prefix(part.applicationBytes).elementsEqual(image), "the emulated flash differs from the image")
        print(
            "28 KiB erase + write + verify through emulate dfu: dfu-programmer \(run.record("dfuprogrammer")["ms"] ?? "?") ms (its erase, then its flash with its own verify), "
                + "AtmelDFUProgrammer \(run.record("start")["total_ms"] ?? "?") ms (write \(run.record("write")["ms"] ?? "?") ms, verify \(run.record("verify")["ms"] ?? "?") ms)")
    }
}
