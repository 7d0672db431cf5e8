import BridgeProtocol
import FirmwareImage
import SimulatedBoard
import Testing
import USBEmulation

/// The bootloader code the emulated boards carry in their boot sections, read by the
/// firmware's own boot section scan (`hb_bootloader_kind`, which the ATmega32U4 port runs
/// at start-up): what HELLO_REPLY reports for a board with that bootloader.
@Suite("The emulated boot sections, as the firmware scans them")
struct BootSectionTests {
    @Test("Caterina's boot section scans as Caterina, Atmel DFU's as Atmel DFU, an erased one as none")
    func scannedByTheFirmware() {
        let part = AVRPart.atmega32u4
        func section(_ code: [UInt8]) -> [UInt8] { Array(FlashMemory(part: part, bootloader: code).bytes[part.bootloaderStart...]) }
        #expect(BootloaderKind(scanningBootSection: section(CaterinaBootloader.bootSection)) == .caterina)
        #expect(BootloaderKind(scanningBootSection: section(DFUBootloader.bootSection)) == .atmelDFU)
        #expect(BootloaderKind(scanningBootSection: section([])) == .noneFound)
    }
}
