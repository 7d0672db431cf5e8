import Hex

/// The checks every image passes before a bootloader is told to erase anything: it
/// holds data, it was built for the part, it ends before the bootloader section
/// (avrdude has no such check: an oversized image overwrites the bootloader, or is
/// half-written when the bootloader refuses), and it has code at the reset vector.
/// The board's own signature is checked by the flash plan against
/// `BootloaderProgrammer.readPart()`.
public enum ImageCheck {
    /// The reset vector: the MCU starts at flash address 0 (the vector table's first
    /// entry, a `jmp` on the 32U4), and Caterina starts an application only when the
    /// word there is not erased (`pgm_read_word(0) != 0xFFFF`, Caterina.c): an image
    /// with nothing there would be written and never run, and the board would stay in
    /// its bootloader.
    public static let resetVector = 0

    public static func check(_ image: FirmwareImage, for part: AVRPart) throws(ImageError) {
        guard !image.isEmpty else { throw ImageError(source: image.source, rule: .empty, detail: "the image holds no flash data: nothing to write") }
        if let declared = image.declaredPart, declared != part {
            throw ImageError(source: image.source, rule: .wrongPart, detail: "built for the \(declared.name), the board is an \(part.name)")
        }
        if let first = image.runs.first, first.address < 0 {
            throw ImageError(source: image.source, rule: .tooLarge, detail: "data at a negative address")
        }
        guard image.end <= part.bootloaderStart else {
            let firstOver = image.runs.first { $0.end > part.bootloaderStart }.map { max($0.address, part.bootloaderStart) } ?? image.end
            throw ImageError(
                source: image.source, rule: .tooLarge,
                detail: "data at \(Hex.literal(firstOver, width: 4)), at or past the bootloader section at \(Hex.literal(part.bootloaderStart, width: 4)): the \(part.name)'s application may use \(part.applicationBytes) bytes (0x0000...\(Hex.literal(part.bootloaderStart - 1, width: 4))), this image reaches \(Hex.literal(image.end - 1, width: 4))"
            )
        }
        // The first word, both bytes: what the reset jumps to and what Caterina reads.
        let first = image.runs.first { $0.address <= resetVector && resetVector + 2 <= $0.end }
        guard let first else {
            let lowest = image.runs.first.map { " (its lowest data is at \(Hex.literal($0.address, width: 4)))" } ?? ""
            throw ImageError(
                source: image.source, rule: .noResetVector,
                detail: "no code at the reset vector \(Hex.literal(resetVector, width: 4))\(lowest): the \(part.name) starts there, so this image would never run (is it an application, linked from 0x0000?)")
        }
        let at = resetVector - first.address
        guard first.bytes[at] != 0xFF || first.bytes[at + 1] != 0xFF else {
            throw ImageError(
                source: image.source, rule: .noResetVector,
                detail: "the word at the reset vector \(Hex.literal(resetVector, width: 4)) is 0xFFFF, erased flash: Caterina takes that for no application and never starts it")
        }
    }
}

/// A firmware file on disk, whatever its format: ELF by its magic, Intel HEX otherwise.
public enum FirmwareImageFile {
    /// The largest file read: an ELF with debug information stays far below this.
    public static let byteLimit = 16 * 1024 * 1024

    /// The image in `bytes` (a file's contents), loaded and checked for `part`.
    public static func image(_ bytes: [UInt8], source: String, part: AVRPart) throws(ImageError) -> FirmwareImage {
        let image = ELFImage.isELF(bytes) ? try ELFImage.parse(bytes, source: source, part: part) : try IntelHex.parse(bytes, source: source)
        try ImageCheck.check(image, for: part)
        return image
    }
}
