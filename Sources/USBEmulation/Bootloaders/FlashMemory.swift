import FirmwareImage

/// An AVR's program flash as a bootloader sees it, for the bootloader emulations:
/// erased bytes read 0xFF, a write programs one page (SPM can only clear bits, so a
/// page is written over erased flash), and the bootloader section is write-protected
/// (the lock bits the boards ship with): a write or erase there is refused, the way
/// Caterina and Atmel's DFU bootloader refuse it, and reads of it return the
/// bootloader's own code.
///
/// Every page erase and page write the chip would have run is counted, so a bootloader
/// answers when its self-programming would have finished (`takeSelfProgrammingMicroseconds`:
/// the part's SPM time for each). A refused one costs nothing: the lock bits make SPM
/// ignore it.
public struct FlashMemory: Sendable, Equatable {
    public let part: AVRPart
    public private(set) var bytes: [UInt8]
    /// Page erases and page writes since the flash was made.
    public private(set) var selfProgrammingOperations = 0
    /// Those a bootloader has not answered for yet.
    private var unansweredOperations = 0
    /// The time the bootloaders answered for (`takeSelfProgrammingMicroseconds`): how
    /// long the chip was busy programming while a host waited.
    public private(set) var busyMicroseconds: UInt64 = 0

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

    /// Two flashes are the same when they hold the same bytes of the same part, however
    /// long they took to get there.
    public static func == (a: FlashMemory, b: FlashMemory) -> Bool { a.part == b.part && a.bytes == b.bytes }

    /// A chip erase as a bootloader does it: every page of the application section, one
    /// SPM page erase each.
    public mutating func eraseApplication() {
        for page in stride(from: 0, to: part.bootloaderStart, by: part.pageBytes) {
            try? erasePage(at: page)
        }
    }

    /// Erases one page (page-aligned `address`), as a bootloader's SPM page erase does
    /// before it fills and writes the page; a page of the bootloader section is refused.
    public mutating func erasePage(at address: Int) throws(Refusal) {
        guard address >= 0, address % part.pageBytes == 0, address + part.pageBytes <= part.flashBytes else {
            throw .outOfRange(address: address, count: part.pageBytes)
        }
        guard address + part.pageBytes <= part.bootloaderStart else { throw .bootloaderSection(address: address) }
        for i in address..<(address + part.pageBytes) { bytes[i] = 0xFF }
        selfProgrammed()
    }

    /// Programs the page at `address` (page-aligned, `pageBytes` long). As SPM does,
    /// a write can only clear bits: the result is old AND new (write over erased flash).
    public mutating func writePage(at address: Int, _ data: [UInt8]) throws(Refusal) {
        guard address >= 0, address % part.pageBytes == 0, data.count == part.pageBytes, address + data.count <= part.flashBytes else {
            throw .outOfRange(address: address, count: data.count)
        }
        guard address + data.count <= part.bootloaderStart else { throw .bootloaderSection(address: address) }
        for (i, b) in data.enumerated() { bytes[address + i] &= b }
        selfProgrammed()
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

    /// How long the page erases and writes since the last call kept the chip busy (the
    /// part's self-programming time each); the bootloader answers when that has passed.
    public mutating func takeSelfProgrammingMicroseconds() -> UInt64 {
        let busy = UInt64(unansweredOperations) * UInt64(part.selfProgrammingMicroseconds)
        unansweredOperations = 0
        busyMicroseconds += busy
        return busy
    }

    /// The page erases and writes so far were done before any host came (an application
    /// already on the board): no answer waits for them.
    public mutating func forgetSelfProgramming() { unansweredOperations = 0 }

    private mutating func selfProgrammed() {
        selfProgrammingOperations += 1
        unansweredOperations += 1
    }
}
