import Hex

/// What a flash that ended before its end left on the board (`FlashError.left`): what
/// its application section holds, whether it is in its bootloader, and what that
/// bootloader does by itself — in words for the error line, in fields for `--json`.
///
/// What the bootloaders do by themselves is Caterina.c's (Arduino's Caterina, which
/// the Pro Micro, Leonardo and Micro ship): it counts a 1 ms tick only while the word at
/// 0x0000 is programmed (`pgm_read_word(0) != 0xFFFF`), each block command ('B', 'g')
/// starts the count again, and past 8000 it leaves for the application at 0x0000; at a
/// power-on it starts that application at once. With 0x0000 erased it never leaves.
/// That is why `FlashPlan` writes the reset vector's page last: a write cut short
/// leaves 0x0000 erased and the board in its bootloader, by itself and across a power
/// cycle. Atmel's DFU bootloader has no such timeout: it waits to be told.
public struct FlashLeft: Sendable, Equatable, CustomStringConvertible {
    public enum Application: String, Sendable {
        /// Nothing was sent to the board: it runs what it ran.
        case untouched
        /// In its bootloader (or on its way there), nothing erased.
        case intact
        /// Erased, nothing written.
        case erased
        /// Erased and written in part; the reset vector's page, written last, not yet.
        case partlyWritten = "partly-written"
        /// Every page written; the read-back not finished (or it differed).
        case written
        /// Written and read back whole; the application not started.
        case verified
        /// Written, verified and started; its firmware not seen back yet.
        case started
    }

    public var application: Application
    /// The board is in its bootloader, or was sent there (ENTER_BOOTLOADER, the
    /// 1200-baud touch) and has left its firmware.
    public var inBootloader: Bool
    /// "caterina" or "atmel-dfu"; nil while the bootloader has not been seen (the hand-over).
    public var bootloader: String?
    /// Its tty or USB port, when known.
    public var location: String?
    /// Flash written, whole pages, in address order (inclusive ranges).
    public var written: [ClosedRange<Int>] = []
    /// The flash the image covers, first page's start to last page's end.
    public var image: ClosedRange<Int>?
    public var verifiedBytes = 0

    public init(application: Application, inBootloader: Bool, bootloader: String? = nil, location: String? = nil) {
        self.application = application
        self.inBootloader = inBootloader
        self.bootloader = bootloader
        self.location = location
    }

    public var writtenBytes: Int { written.reduce(0) { $0 + $1.count } }

    /// The ranges of whole pages written: `pages` in the order written, the first
    /// `bytes` of them done.
    static func ranges(of pages: [(address: Int, bytes: [UInt8])], done bytes: Int) -> [ClosedRange<Int>] {
        var left = bytes
        let done = pages.prefix { page in
            guard left >= page.bytes.count else { return false }
            left -= page.bytes.count
            return true
        }
        var ranges: [ClosedRange<Int>] = []
        for page in done.sorted(by: { $0.address < $1.address }) {
            let range = page.address...(page.address + page.bytes.count - 1)
            if let last = ranges.last, last.upperBound + 1 == range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound...range.upperBound
            } else {
                ranges.append(range)
            }
        }
        return ranges
    }

    /// "the board stays in its Caterina bootloader at /dev/ttyACM0", or the DFU's.
    private var stays: String {
        let at = location.map { " at \($0)" } ?? ""
        switch bootloader {
        case "caterina": return "the board stays in its Caterina bootloader\(at)"
        case "atmel-dfu": return "the board stays in its Atmel DFU bootloader\(at)"
        default: return "the board stays in its bootloader\(at)"
        }
    }

    /// What its bootloader does by itself when the word at 0x0000 holds code (`armed`) or not.
    private func byItself(armed: Bool) -> String {
        switch bootloader {
        case "caterina":
            armed
                ? "Caterina starts the application at 0x0000 by itself about 8 s after the last command (and at a power-on)"
                : "with 0x0000 erased Caterina never starts an application by itself, not even at a power-on"
        case "atmel-dfu": "the DFU bootloader waits until it is told to start the application"
        default:
            armed
                ? "a Caterina bootloader starts the application at 0x0000 by itself about 8 s after the last command; an Atmel DFU bootloader waits to be told"
                : "with 0x0000 erased a Caterina bootloader never starts an application by itself; an Atmel DFU bootloader waits to be told"
        }
    }

    private func addresses(_ range: ClosedRange<Int>) -> String { "\(Hex.literal(range.lowerBound, width: 4))...\(Hex.literal(range.upperBound, width: 4))" }

    /// What the board holds and does now, and what to do: one clause for the error line.
    public var description: String {
        let imageRange = image.map { addresses($0) } ?? "the image"
        switch application {
        case .untouched:
            return "nothing was sent to the board: it runs what it ran"
        case .intact where bootloader == nil:
            return "the board was sent to its bootloader and nothing was erased: its application is intact; a Caterina bootloader "
                + "starts it again by itself about 8 s after coming up when no programmer speaks to it (the board comes back as it was), "
                + "an Atmel DFU bootloader waits to be told; run `hapbridge flash` again to flash it"
        case .intact:
            let waits =
                bootloader == "atmel-dfu"
                ? byItself(armed: true) : "Caterina starts that application by itself about 8 s after the last command, if there is one"
            return "nothing was erased, the application is as it was: \(stays); \(waits); run `hapbridge flash` again to flash it"
        case .erased:
            return "the application section is erased and nothing is written: \(stays), and " + byItself(armed: false)
                + "; run `hapbridge flash` again to write it"
        case .partlyWritten:
            let done = written.map { addresses($0) }.joined(separator: ", ")
            return "the application section is erased and partly written (\(done) of \(imageRange), \(writtenBytes) bytes; the reset vector's "
                + "page, written last, not yet): \(stays), and " + byItself(armed: false) + "; run `hapbridge flash` again to finish"
        case .written:
            let readBack = verifiedBytes == 0 ? "not read back" : "read back only as far as \(verifiedBytes) bytes"
            return "every page of the image is written (\(imageRange)) but \(readBack): \(stays); "
                + byItself(armed: true) + "; `hapbridge flash --verify-only` checks it, `hapbridge flash` writes it again"
        case .verified:
            return "the image is written and verified (\(imageRange)) and the application not started: \(stays); " + byItself(armed: true)
                + "; `hapbridge flash` again starts it at the end"
        case .started:
            return "the image is written and verified (\(imageRange)) and the application was started: the board is on its way back to its "
                + "firmware (`hapbridge list` shows it)"
        }
    }
}
