import FirmwareImage
import Hex
import Synchronization

/// The one order every flash follows, whatever the bootloader: read the board's part
/// and check the image against it (nothing is erased before both pass), erase the
/// application section, write the image's pages, verify them by reading back, start
/// the application. With a `SerialWrite` (`--serial`, or a serial derived for a board
/// that reported `UNSET`) the EEPROM's serial record is written and read back after the
/// application is verified and before it starts: an image that is refused, or a flash
/// that fails, never gets that far. `--verify-only` reads back and compares without erasing or
/// writing; `--dry-run` never reaches a plan (the CLI stops after the image checks).
///
/// A failure after the erase leaves the board in its bootloader (it does not start a
/// half-written application, and the reset vector's page is written last, so not even
/// Caterina's timeout or a power-on does): the error says so and what the board holds
/// (`FlashError.left`), and running `flash` again starts over. A `FlashStop` (a
/// signal) stops it the same way at the next block.
public enum FlashPlan {
    public enum Mode: String, Sendable { case write, verifyOnly = "verify-only" }

    /// What was done, for the CLI's summary and its `--json` report.
    public struct Report: Sendable, Equatable {
        public var bootloader: String
        public var part: String
        public var image: String
        /// Data bytes in the image, and the whole pages written for them.
        public var imageBytes: Int
        public var pages: Int
        /// Lowest and one past the highest address written (whole pages).
        public var start: Int
        public var end: Int
        public var erased = false
        public var writtenBytes = 0
        public var verifiedBytes = 0
        public var applicationStarted = false
        /// Seconds each phase took (erase, write, verify, serial), wall clock.
        public var seconds: [String: Double] = [:]
        /// The serial asked for, where it came from, what became of it, and the serial
        /// the EEPROM held before (nil: none).
        public var serial: String?
        public var serialSource: String?
        public var serialOutcome: String?
        public var previousEEPROMSerial: String?
    }

    /// Image checks against a part, as a `FlashError` (.badImage / .wrongPart).
    public static func check(_ image: FirmwareImage, for part: AVRPart) throws(FlashError) {
        do { try ImageCheck.check(image, for: part) } catch { throw FlashError(error) }
    }

    /// The plan on `programmer`'s bootloader. `stop` is looked at before each phase and
    /// (by the programmer) before each block: a stop never starts an erase, and leaves
    /// the board in its bootloader. The reset vector's page is written last (see
    /// `FlashLeft`: until it is, a Caterina board stays in its bootloader whatever
    /// happens). Every failure and stop says what the board holds (`FlashError.left`).
    public static func run(
        image: FirmwareImage, expected part: AVRPart, programmer: some BootloaderProgrammer, mode: Mode, progress: FlashProgress,
        startApplication: Bool = true, stop: FlashStop = FlashStop(), location: String? = nil, serial: SerialWrite? = nil
    ) throws(FlashError) -> Report {
        var left = FlashLeft(application: .intact, inBootloader: true, bootloader: programmer.protocolName, location: location)
        do {
            return try run(image, part, programmer, mode, progress, startApplication, stop, serial, &left)
        } catch {
            var failed = error
            failed.left = left
            if error.kind == .stopped { failed.message += ": " + left.description }
            throw failed
        }
    }

    private static func run(
        _ image: FirmwareImage, _ part: AVRPart, _ programmer: some BootloaderProgrammer, _ mode: Mode, _ progress: FlashProgress,
        _ startApplication: Bool, _ stop: FlashStop, _ serial: SerialWrite?, _ left: inout FlashLeft
    ) throws(FlashError) -> Report {
        try stop.check("before the board's part was read")
        let board = try programmer.readPart()
        guard board == part else {
            throw FlashError(
                .wrongPart,
                "the board reports the signature \(Hex.bytes(board.signature, separator: " ")) (\(board.name)), the image is for the \(part.name) (\(Hex.bytes(part.signature, separator: " "))): nothing was erased")
        }
        try check(image, for: board)
        let pages = image.pages(of: board)
        var report = Report(
            bootloader: programmer.protocolName, part: board.name, image: image.source, imageBytes: image.byteCount, pages: pages.count,
            start: pages.first?.address ?? 0, end: (pages.last?.address ?? 0) + board.pageBytes)
        left.image = report.start...(report.end - 1)
        let clock = ContinuousClock()
        func timed<T>(_ phase: String, _ body: () throws(FlashError) -> T) throws(FlashError) -> T {
            let started = clock.now
            defer {
                let d = clock.now - started
                report.seconds[phase] = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            }
            return try body()
        }
        // Bytes each phase had done (answered), for what a failure or a stop left.
        let done = Mutex<[FlashProgress.Phase: Int]>([:])
        let tracked = FlashProgress { phase, count, total in
            done.withLock { $0[phase] = count }
            progress.report(phase, count, total)
        }
        if mode == .write {
            try stop.check("before the erase")
            do {
                try timed("erase") { () throws(FlashError) in try programmer.eraseApplication(progress: progress) }
            } catch { throw stillInBootloader(error) }
            report.erased = true
            left.application = .erased
            // The reset vector's page last: until it is written, 0x0000 stays erased.
            let resetPage = ImageCheck.resetVector - ImageCheck.resetVector % board.pageBytes
            let order = pages.filter { $0.address != resetPage } + pages.filter { $0.address == resetPage }
            do {
                try timed("write") { () throws(FlashError) in try programmer.write(pages: order, progress: tracked, stop: stop) }
            } catch {
                left.written = FlashLeft.ranges(of: order, done: done.withLock { $0[.write] ?? 0 })
                if !left.written.isEmpty { left.application = .partlyWritten }
                throw error.kind == .stopped ? error : stillInBootloader(error)
            }
            report.writtenBytes = pages.count * board.pageBytes
            left.written = FlashLeft.ranges(of: order, done: report.writtenBytes)
            left.application = .written
            try stop.check("before the read-back")
        }
        do {
            report.verifiedBytes = try timed("verify") { () throws(FlashError) in try verify(pages, programmer: programmer, progress: tracked, stop: stop) }
        } catch {
            left.verifiedBytes = done.withLock { $0[.verify] ?? 0 }
            throw mode == .write && error.kind != .stopped ? stillInBootloader(error) : error
        }
        left.verifiedBytes = report.verifiedBytes
        if mode == .write { left.application = .verified }
        if let serial, mode == .write {
            try stop.check("before the serial record was written")
            report.serial = serial.serial.text
            report.serialSource = serial.source.rawValue
            let done = try timed("serial") { () throws(FlashError) in try serial.apply(with: programmer) }
            report.serialOutcome = done.outcome.rawValue
            report.previousEEPROMSerial = done.previous?.text
            report.serial = done.stored.text
        }
        if startApplication {
            try stop.check("before the application was started")
            try programmer.startApplication()
            report.applicationStarted = true
            if mode == .write { left.application = .started }
            left.inBootloader = false
        }
        return report
    }

    /// Reads back each run of consecutive pages and compares it with what was meant
    /// to be there; the first difference is the error.
    static func verify(
        _ pages: [(address: Int, bytes: [UInt8])], programmer: some BootloaderProgrammer, progress: FlashProgress, stop: FlashStop
    ) throws(FlashError) -> Int {
        let total = pages.reduce(0) { $0 + $1.bytes.count }
        var done = 0
        var index = 0
        progress.report(.verify, 0, total)
        while index < pages.count {
            var expected = pages[index].bytes
            let start = pages[index].address
            index += 1
            while index < pages.count, pages[index].address == start + expected.count {
                expected += pages[index].bytes
                index += 1
            }
            let base = done
            let got = try programmer.read(
                address: start, count: expected.count, progress: FlashProgress { _, d, _ in progress.report(.verify, base + d, total) }, stop: stop)
            if let at = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? (got.count != expected.count ? min(got.count, expected.count) : nil) {
                let found = at < got.count ? Hex.literal(got[at], width: 2) : "nothing"
                throw FlashError(.verifyFailed, "verify failed at \(Hex.literal(start + at, width: 4)): the board has \(found), the image \(Hex.literal(expected[at], width: 2))")
            }
            done += expected.count
        }
        return done
    }

    /// A failure after the erase: the application is not whole, so the board is left
    /// in its bootloader (it is never told to start it), and the error says so and
    /// what to do. A board that went away comes back in its bootloader only if its
    /// bootloader sees no application (or by hand): the message says both.
    private static func stillInBootloader(_ error: FlashError) -> FlashError {
        switch error.kind {
        case .verifyFailed:
            return FlashError(.verifyFailed, error.message + "; the board stays in its bootloader: run `hapbridge flash` again")
        case .gone:
            return FlashError(
                .interrupted,
                error.message + "; its application is only partly written: plug it back in (if it does not come up in its bootloader, "
                    + "short RST to GND twice) and run `hapbridge flash` again")
        default:
            return FlashError(
                .interrupted, error.message + "; the board stays in its bootloader with its application partly written: run `hapbridge flash` again")
        }
    }
}

extension FlashError {
    /// An image refusal: `.wrongPart` for another MCU, `.badImage` for everything else.
    public init(_ error: ImageError) {
        self.init(error.rule == .wrongPart ? .wrongPart : .badImage, error.description + " (nothing was erased)")
    }
}
