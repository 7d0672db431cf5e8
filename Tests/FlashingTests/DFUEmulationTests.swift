import FirmwareImage
import Foundation
import Testing
import USBEmulation

/// `hapbridge emulate dfu` against the public clients, Debian's dfu-programmer 0.6.1 and
/// avrdude 7.1's flip1, and against hapbridge's own `AtmelDFUProgrammer` (through
/// dfu-flash-probe and `hapbridge flash`): what each writes is what the flash then
/// holds, byte for byte, and the bootloader section stays out of reach.
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

    @Test("dfu-programmer reads the configuration as a real part answers it: manufacturer 0x58, then the signature 1E 95 87 as family, product name and product revision, and the bootloader version")
    func signatureThroughReadConfiguration() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate(
            "for w in manufacturer family product-name product-revision bootloader-version; do dfu-programmer atmega32u4 get $w || exit 1; done", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("Manufacturer Code: 0x58"), "\(run)")
        #expect(run.output.contains("Family Code: 0x1e"), "\(run)")
        #expect(run.output.contains("Product Name: 0x95"), "\(run)")
        #expect(run.output.contains("Product Revision: 0x87"), "\(run)")
        #expect(run.output.contains("Bootloader Version: 0x"), "\(run)")
    }

    @Test("avrdude -c flip1 -p m32u4 takes the part by its signature 1E 95 87, erases, writes a full 28 KiB application, verifies it and reads it back; the flash holds the image")
    func avrdudeFlip1WritesAndVerifies() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = DFURun.pattern(part.applicationBytes)
        try DFURun.intelHex(image).write(to: dir.appendingPathComponent("full.hex"), atomically: true, encoding: .utf8)
        let run = try DFURun.emulate("avrdude -c flip1 -p m32u4 -U flash:w:full.hex:i -U flash:r:back.bin:r", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.errors.contains("device signature = 0x1e9587"), "\(run)")
        #expect(run.errors.contains("\(part.applicationBytes) bytes of flash verified"), "\(run)")
        // Of the descriptor fields flip1 checks, only bDeviceClass is not what it expects
        // (254): a real ATmega32U4's bootloader says 255 there too.
        for field in ["bDeviceSubClass", "bDeviceProtocol", "bMaxPacketSize0", "bNumConfigurations", "bNumInterfaces", "idVendor", "idProduct"] {
            #expect(!run.errors.contains(field), "\(field): \(run)")
        }
        #expect(!run.errors.contains("error"), "\(run)")
        let back = [UInt8](try Data(contentsOf: dir.appendingPathComponent("back.bin")))
        #expect(back.prefix(part.applicationBytes).elementsEqual(image), "avrdude's read-back differs from the image")
        #expect(run.flash.prefix(part.applicationBytes).elementsEqual(image), "the emulated flash differs from the image")
        #expect(run.errors.contains("1 erase(s), \(part.applicationBytes / part.pageBytes) page(s) written"), "one program command per page: \(run)")
    }

    @Test("lsusb -v shows a real ATmega32U4 bootloader's descriptors: class 255/1/0 at the device, a 32-byte endpoint 0, one 18-byte configuration of 100 mA, one interface of class 0 with no endpoints")
    func descriptorsAsTheChip() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate("lsusb -v -d 03eb:2ff4", in: dir)
        #expect(run.status == 0, "\(run)")
        let fields = Dictionary(
            run.output.split(separator: "\n").compactMap { line -> (String, String)? in
                let words = line.split(separator: " ")
                return words.count >= 2 ? (String(words[0]), String(words[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        #expect(fields["bcdUSB"] == "2.00" && fields["bDeviceClass"] == "255" && fields["bDeviceSubClass"] == "1" && fields["bDeviceProtocol"] == "0", "\(run)")
        #expect(fields["bMaxPacketSize0"] == "32" && fields["bcdDevice"] == "0.00" && fields["bNumConfigurations"] == "1", "\(run)")
        #expect(["18", "0x0012"].contains(fields["wTotalLength"] ?? ""), "\(run)")
        #expect(fields["MaxPower"] == "100mA" && fields["bNumEndpoints"] == "0", "\(run)")
        #expect(fields["bInterfaceClass"] == "0" && fields["bInterfaceSubClass"] == "0" && fields["bInterfaceProtocol"] == "0", "\(run)")
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
        #expect(run.output.contains("Family Code: 0x1e"), "after the refusal: \(run)")
        #expect(run.flash.count == part.flashBytes)
        let code = DFUBootloader.bootSection + [UInt8](repeating: 0xFF, count: part.bootloaderBytes - DFUBootloader.bootSection.count)
        #expect(Array(run.flash[part.bootloaderStart...]) == code, "the bootloader section changed")
        #expect(run.errors.contains("1 command(s) refused"), "\(run)")
    }

    @Test("before a chip erase the bootloader refuses reads (errFILE) and writes (a STALL, errWRITE), as Atmel's factory bootloader does, and hapbridge's programmer says so; after one it takes them")
    func securityModeUntilErase() throws {
        guard let hex = firmwareHex() else { return }
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate(
            """
            dfu-programmer atmega32u4 flash '\(hex)'; echo flash=$?
            dfu-programmer atmega32u4 dump > /dev/null; echo dump=$?
            '\(DFURun.probe)' read 0 128; echo probe=$?
            '\(DFURun.probe)' write-unerased 0; echo unerased=$?
            dfu-programmer atmega32u4 erase && dfu-programmer atmega32u4 flash '\(hex)' && '\(DFURun.probe)' read 0 128
            """, in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("flash=1") && run.output.contains("dump=1") && run.output.contains("probe=1"), "\(run)")
        // The STALLed DNLOAD is asked why: GETSTATUS's errWRITE, and what it means.
        #expect(run.output.contains("unerased=1") && run.output.contains("writing 0x0000...0x007F: the bootloader at 1-1 answered errWRITE"), "\(run)")
        #expect(run.output.contains("nothing can be written before a chip erase"), "\(run)")
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
        #expect(run.flash.prefix(part.applicationBytes).allSatisfy { $0 == 0xFF })
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

    @Test("a full 28 KiB application: dfu-programmer, avrdude's flip1 and hapbridge's programmer each erase, write and verify it in the same run (times printed beside the modelled programming time)")
    func fullApplicationTimes() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = DFURun.pattern(part.applicationBytes)
        try DFURun.intelHex(image).write(to: dir.appendingPathComponent("full.hex"), atomically: true, encoding: .utf8)
        let run = try DFURun.emulate(
            """
            t0=$(date +%s%N)
            dfu-programmer atmega32u4 erase && dfu-programmer atmega32u4 flash full.hex || exit 10
            t1=$(date +%s%N)
            avrdude -q -q -c flip1 -p m32u4 -U flash:w:full.hex:i || exit 12
            t2=$(date +%s%N)
            echo "dfuprogrammer ms=$(( (t1 - t0) / 1000000 ))"
            echo "avrdude ms=$(( (t2 - t1) / 1000000 ))"
            '\(DFURun.probe)' flash full.hex || exit 11
            """, in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(run.record("write")["bytes"] == String(part.applicationBytes), "\(run)")
        #expect(run.flash.prefix(part.applicationBytes).elementsEqual(image), "the emulated flash differs from the image")
        // The chip's own share of each: a chip erase (one page erase per application
        // page) and a write (an erase and a write per page).
        let pages = part.applicationBytes / part.pageBytes
        let modelled = 3 * pages * part.selfProgrammingMicroseconds / 1000
        print(
            "28 KiB erase + write + verify through emulate dfu (the chip's programming time in each: \(modelled) ms): "
                + "dfu-programmer \(run.record("dfuprogrammer")["ms"] ?? "?") ms (its erase, then its flash with its own verify), "
                + "avrdude flip1 \(run.record("avrdude")["ms"] ?? "?") ms (erase, write, verify), "
                + "AtmelDFUProgrammer \(run.record("start")["total_ms"] ?? "?") ms (write \(run.record("write")["ms"] ?? "?") ms, verify \(run.record("verify")["ms"] ?? "?") ms)")
    }
}
