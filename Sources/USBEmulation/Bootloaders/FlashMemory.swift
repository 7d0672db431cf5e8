import FirmwareImage

/// An AVR's program flash as a bootloader sees it, for the bootloader emulations:
/// erased bytes read 0xFF, a write programs one page (SPM can only clear bits, so a
/// page is written over erased flash), and the bootloader section is write-protected
/// (the lock bits the boards ship with): a write or erase there is refused, the way
/// Caterina and Atmel's DFU bootloader refuse it, and reads of it return the
/// bootloader's own code.
public struct FlashMemory: Sendable, Equatable {
    public let part: AVRPart
    public private(set) var bytes: [UInt8]

    public enum Refusal: Error, Sendable, Equatable {
        /// The address range leaves flash or is not one whole page where a page is needed.
        case outOfRange(address: Int, count: Int)
        /// The range reaches into the write-protected bootloader section.
        case bootloaderSection(address: Int)
    }

    /// Flash with an erased application section and `bootloader` (its code, padded
    /// with 0xFF to the section's size) at the top.
    public init(part: AVRPart, bootloader: [UInt8] = []) {
        self.part = part
        var bytes = [UInt8](repeating: 0xFF, count: part.flashBytes)
        for (i, b) in bootloader.prefix(part.bootloaderBytes).enumerated() { bytes[part.bootloaderStart + i] = b }
        self.bytes = bytes
    }

    /// A chip erase as a bootloader does it: the application section only.
    public mutating func eraseApplication() {
        for i in 0..<part.bootloaderStart { bytes[i] = 0xFF }
    }

    /// Programs the page at `address` (page-aligned, `pageBytes` long). As SPM does,
    /// a write can only clear bits: the result is old AND new (write over erased flash).
    public mutating func writePage(at address: Int, _ data: [UInt8]) throws(Refusal) {
        guard address >= 0, address % part.pageBytes == 0, data.count == part.pageBytes, address + data.count <= part.flashBytes else {
            throw .outOfRange(address: address, count: data.count)
        }
        guard address + data.count <= part.bootloaderStart else { throw .bootloaderSection(address: address) }
        for (i, b) in data.enumerated() { bytes[address + i] &= b }
    }

    /// Reads `count` bytes from `address`.
    public func read(address: Int, count: Int) throws(Refusal) -> [UInt8] {
        guard address >= 0, count >= 0, address + count <= part.flashBytes else { throw .outOfRange(address: address, count: count) }
        return Array(bytes[address..<(address + count)])
    }

    /// Whether the application section is all 0xFF (a DFU blank check of that range).
    public func isBlank(from start: Int, to end: Int) -> Bool {
        guard start >= 0, end < part.flashBytes, start <= end else { return false }
        return bytes[start...end].allSatisfy { $0 == 0xFF }
    }
}
