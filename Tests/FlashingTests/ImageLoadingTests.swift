import FirmwareImage
import Testing

@Suite("Firmware images: Intel HEX and ELF, refused before anything is erased")
struct ImageLoadingTests {
    let part = AVRPart.atmega32u4

    func refusal(_ bytes: [UInt8], source: String = "fw.hex") -> ImageError? {
        do {
            _ = try FirmwareImageFile.image(bytes, source: source, part: part)
            return nil
        } catch { return error }
    }

    @Test("Intel HEX data records, extended addresses and the end record give bytes at addresses")
    func hexLoads() throws {
        let file = Fixtures.hex([
            Fixtures.record(0x00, 0x0000, [1, 2, 3, 4]),
            Fixtures.record(0x00, 0x0004, [5, 6]),
            Fixtures.record(0x02, 0x0000, [0x01, 0x00]),  // segment 0x100 -> base 0x1000
            Fixtures.record(0x00, 0x0010, [7]),
            Fixtures.record(0x03, 0x0000, [0, 0, 0, 0]),
            Fixtures.eof,
        ])
        let image = try FirmwareImageFile.image(file, source: "fw.hex", part: part)
        #expect(image.runs == [.init(address: 0, bytes: [1, 2, 3, 4, 5, 6]), .init(address: 0x1010, bytes: [7])])
        #expect(image.byteCount == 7)
    }

    @Test("a bad checksum is refused with the file, the line and what the checksum should be")
    func badChecksum() {
        let e = refusal(Fixtures.hex([Fixtures.record(0x00, 0, [1, 2]), Fixtures.record(0x00, 2, [3], checksumDelta: 1), Fixtures.eof]))
        #expect(e?.rule == .checksum)
        #expect(e?.location == "line 2")
        #expect(e?.description.hasPrefix("fw.hex line 2: checksum") == true)
        #expect(e?.description.contains("\n") == false)
    }

    @Test("a malformed record (no colon, odd digits, wrong length, unknown type, missing end) names its line")
    func malformed() {
        #expect(refusal(Fixtures.hex(["hello", Fixtures.eof]))?.location == "line 1")
        #expect(refusal(Fixtures.hex([":0100000", Fixtures.eof]))?.rule == .malformed)
        #expect(refusal(Fixtures.hex([":02000000AAFF", Fixtures.eof]))?.rule == .malformed)
        #expect(refusal(Fixtures.hex([Fixtures.record(0x07, 0, []), Fixtures.eof]))?.description.contains("unknown record type 07") == true)
        let cut = refusal(Fixtures.hex([Fixtures.record(0x00, 0, [1])]))
        #expect(cut?.rule == .malformed && cut?.description.contains("no end-of-file record") == true)
        #expect(refusal(Fixtures.hex([Fixtures.eof, Fixtures.record(0x00, 0, [1])]))?.location == "line 2")
    }

    @Test("two records giving the same address are refused, naming both lines")
    func overlap() {
        let e = refusal(Fixtures.hex([Fixtures.record(0x00, 0x100, [1, 2, 3, 4]), Fixtures.record(0x00, 0x102, [9]), Fixtures.eof]))
        #expect(e?.rule == .overlap)
        #expect(e?.location == "line 2")
        #expect(e?.description.contains("line 1") == true)
    }

    @Test("data at or past the bootloader section (0x7000 on the 32U4) is refused; up to 0x6FFF is accepted")
    func bootloaderSection() throws {
        let last = Fixtures.hex([Fixtures.record(0x00, 0, [0x0C, 0x94]), Fixtures.record(0x00, 0x6FFF, [0xAA]), Fixtures.eof])
        #expect(try FirmwareImageFile.image(last, source: "fw.hex", part: part).end == 0x7000)
        let over = refusal(Fixtures.hex([Fixtures.record(0x00, 0x6FFE, [1, 2, 3]), Fixtures.eof]))
        #expect(over?.rule == .tooLarge)
        #expect(over?.description.contains("0x7000") == true)
        // Past 64 KiB through an extended linear address: outside flash altogether.
        let far = refusal(Fixtures.hex([Fixtures.record(0x04, 0, [0x00, 0x01]), Fixtures.record(0x00, 0, [1]), Fixtures.eof]))
        #expect(far?.rule == .tooLarge)
    }

    @Test("an image with no data is refused as empty")
    func empty() {
        #expect(refusal(Fixtures.hex([Fixtures.eof]))?.rule == .empty)
        #expect(refusal(Fixtures.elf(segments: []), source: "fw.elf")?.rule == .empty)
    }

    @Test("an AVR ELF's flash is its PT_LOAD segments below 0x800000 by physical address; RAM, EEPROM and .mmcu are not")
    func elfLoads() throws {
        let elf = Fixtures.elf(segments: [(0, [1, 2, 3, 4]), (4, [5, 6]), (0x81_0000, [0xEE]), (0x91_0000, [0x77])])
        let image = try FirmwareImageFile.image(elf, source: "fw.elf", part: part)
        #expect(image.runs == [.init(address: 0, bytes: [1, 2, 3, 4]), .init(address: 4, bytes: [5, 6])])
        #expect(image.declaredPart == part)
    }

    @Test("an ELF's segments in EEPROM, fuses, lock bits, signature and user signatures (avr-gcc's and avrdude's address spaces) load as not flash; one at a load address in no AVR space is refused, naming its program header")
    func elfAddressSpaces() throws {
        let spaces = Fixtures.elf(segments: [
            (0, [0x0C, 0x94]), (0x81_0000, [1]), (0x82_0000, [0xFF, 0xD8, 0xCB]), (0x83_0000, [0xEF]), (0x84_0000, [0x1E, 0x95, 0x87]),
            (0x85_0000, [7]),
        ])
        #expect(try FirmwareImageFile.image(spaces, source: "fw.elf", part: part).runs == [.init(address: 0, bytes: [0x0C, 0x94])])
        for nowhere in [0xFFFF_FF00, 0x86_0000, 0x90_0000] {
            let e = refusal(Fixtures.elf(segments: [(0, [0x0C, 0x94]), (nowhere, [1, 2, 3])]), source: "fw.elf")
            #expect(e?.rule == .outsideMemory, "\(nowhere)")
            #expect(e?.location == "program header 1")
            #expect(e?.description.contains(String(nowhere, radix: 16, uppercase: true)) == true, "\(e?.description ?? "accepted")")
        }
    }

    @Test("an image with nothing at the reset vector 0x0000, or erased flash (0xFFFF) there, is refused: it would never run")
    func resetVector() {
        let hex = refusal(Fixtures.hex([Fixtures.record(0x00, 0x0100, [0x0C, 0x94, 0x34, 0x00]), Fixtures.eof]))
        #expect(hex?.rule == .noResetVector)
        #expect(hex?.description.contains("0x0100") == true)
        #expect(refusal(Fixtures.elf(segments: [(0x100, [0x0C, 0x94])]), source: "fw.elf")?.rule == .noResetVector)
        // One byte is not the word the MCU fetches.
        #expect(refusal(Fixtures.hex([Fixtures.record(0x00, 0, [0x0C]), Fixtures.eof]))?.rule == .noResetVector)
        #expect(refusal(Fixtures.hex([Fixtures.record(0x00, 0, [0xFF, 0xFF, 0x12]), Fixtures.eof]))?.rule == .noResetVector)
    }

    @Test("an ELF for another processor or another AVR core is refused as another MCU")
    func elfOtherMCU() {
        let arm = refusal(Fixtures.elf(machine: 40, segments: [(0, [1])]), source: "fw.elf")
        #expect(arm?.rule == .wrongPart)
        #expect(arm?.description.contains("machine 40 (ARM)") == true)
        let avr6 = refusal(Fixtures.elf(flags: 0x86, segments: [(0, [1])]), source: "fw.elf")
        #expect(avr6?.rule == .wrongPart)
        #expect(avr6?.description.contains("avr6") == true)
    }

    @Test("ELF segments that overlap in flash are refused")
    func elfOverlap() {
        #expect(refusal(Fixtures.elf(segments: [(0, [1, 2, 3, 4]), (2, [9])]), source: "fw.elf")?.rule == .overlap)
    }

    @Test("the project's firmware loads the same from its ELF and its HEX, and fits the application section",
          .enabled(if: Fixtures.firmwareBuilt, "make -C Firmware firmware"))
    func projectFirmware() throws {
        let fromELF = try FirmwareImageFile.image(try Fixtures.bytes(Fixtures.firmwareELF), source: "hapbridge-32u4.elf", part: part)
        let fromHex = try FirmwareImageFile.image(try Fixtures.bytes(Fixtures.firmwareHex), source: "hapbridge-32u4.hex", part: part)
        #expect(fromELF.pages(of: part).map(\.bytes) == fromHex.pages(of: part).map(\.bytes))
        #expect(fromELF.runs.first?.address == 0)
        #expect(fromELF.end <= part.bootloaderStart)
        // The ELF's avr-libc device note names the part.
        #expect(ELFImage.deviceInfoName(try Fixtures.bytes(Fixtures.firmwareELF)) == "atmega32u4")
    }

    @Test("an image written back as Intel HEX reads back the same")
    func hexRoundTrip() throws {
        let image = FirmwareImage(source: "x", runs: [.init(address: 0, bytes: Array(0..<40)), .init(address: 0x1000, bytes: [1])])
        let again = try IntelHex.parse(Array(IntelHex.text(of: image).utf8), source: "x")
        #expect(again.runs == image.runs)
    }
}
