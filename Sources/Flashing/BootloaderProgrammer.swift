import FirmwareImage

/// One bootloader session, as `hapbridge flash` drives it: each bootloader protocol
/// (Caterina's AVR109, Atmel's FLIP DFU) is one conforming type, so the plan (check,
/// erase, write, verify, leave), the progress and the JSON report are written once.
///
/// Every operation is bounded in time and fails with a `FlashError` naming the step;
/// none of them touches fuses, lock bits or the bootloader section.
public protocol BootloaderProgrammer: AnyObject {
    /// The protocol, for messages and the JSON report ("caterina", "atmel-dfu").
    var protocolName: String { get }
    /// The part the bootloader reports (its signature), checked before anything is erased.
    func readPart() throws(FlashError) -> AVRPart
    /// Erases the application section (the bootloader section is protected by the part).
    /// One command: never cut short.
    func eraseApplication(progress: FlashProgress) throws(FlashError)
    /// Writes whole pages (`FirmwareImage.pages(of:)`) in the order given, block by
    /// block; before each block it looks at `stop` (`.stopped`: the blocks before are
    /// written and answered, none after).
    func write(pages: [(address: Int, bytes: [UInt8])], progress: FlashProgress, stop: FlashStop) throws(FlashError)
    /// Reads `count` bytes of flash from `address`, looking at `stop` before each block.
    func read(address: Int, count: Int, progress: FlashProgress, stop: FlashStop) throws(FlashError) -> [UInt8]
    /// Writes `bytes` to the data EEPROM from byte `address` (the serial record,
    /// `flash --serial`): each byte as the bootloader's EEPROM write does it, the part's
    /// EEPROM write time a byte.
    func writeEEPROM(address: Int, bytes: [UInt8]) throws(FlashError)
    /// Reads `count` bytes of the data EEPROM from byte `address`.
    func readEEPROM(address: Int, count: Int) throws(FlashError) -> [UInt8]
    /// Leaves the bootloader and starts the application.
    func startApplication() throws(FlashError)
}

extension BootloaderProgrammer {
    /// Without a stop to look at: to the end, or to the first failure.
    public func write(pages: [(address: Int, bytes: [UInt8])], progress: FlashProgress) throws(FlashError) {
        try write(pages: pages, progress: progress, stop: FlashStop())
    }

    public func read(address: Int, count: Int, progress: FlashProgress) throws(FlashError) -> [UInt8] {
        try read(address: address, count: count, progress: progress, stop: FlashStop())
    }
}

/// Progress of one phase, reported by the programmer as it goes (bytes done of total).
/// The CLI draws it on standard error; tests collect it.
public struct FlashProgress: Sendable {
    public enum Phase: String, Sendable { case erase, write, verify, read }
    public var report: @Sendable (Phase, _ done: Int, _ total: Int) -> Void
    public init(report: @escaping @Sendable (Phase, Int, Int) -> Void) { self.report = report }
    public static let silent = FlashProgress { _, _, _ in }
}

/// Why a flash step failed, with the context a user needs.
public struct FlashError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The image was refused before anything was erased (file, record, rule).
        case badImage = "bad-image"
        /// The board's part or signature does not match the image.
        case wrongPart = "wrong-part"
        /// No bootloader answered where one was expected, in time.
        case noBootloader = "no-bootloader"
        /// The bootloader stopped answering or answered out of protocol mid-flash.
        case protocolError = "protocol"
        /// The device went away (unplugged) mid-operation.
        case gone
        /// Read-back differs from what was written.
        case verifyFailed = "verify-failed"
        /// The write or verify stopped after the erase (unplugged, timed out, refused):
        /// the application is partly written and the board is left in its bootloader.
        case interrupted
        /// The application did not come back (enumerate, answer HELLO) after leaving the bootloader.
        case applicationDidNotStart = "application-did-not-start"
        /// Stopped on request (`FlashStop`: a signal) at a safe point: the block in
        /// flight finished, nothing started after it; `left` says what the board holds.
        case stopped
    }
    public var kind: Kind
    public var message: String
    /// What the board was left holding, where the flash knows it (a failure or a stop
    /// once the board was reached).
    public var left: FlashLeft?
    public init(_ kind: Kind, _ message: String, left: FlashLeft? = nil) {
        self.kind = kind
        self.message = message
        self.left = left
    }
    public var description: String { message }
}
