import ArgumentParser
import AVRBootloaders
import BridgeProtocol
import FirmwareImage
import Flashing
import Foundation
import Hex
import JSON
import Logging
import DeviceInterface
import Devices
import USBBridge

/// `hapbridge flash [IMAGE]`: program a board in its bootloader (Caterina over its
/// serial port, Atmel DFU over libusb) with a checked image: read part, check, erase,
/// write, verify, start (`FlashPlan`). With no IMAGE, the firmware this hapbridge
/// carries (`CarriedFirmware`).
struct FlashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flash",
        abstract: "Write firmware (Intel HEX or ELF; by default the image this hapbridge carries) to a board in its Caterina or Atmel DFU bootloader, verified by reading back.",
        discussion: """
            The image is checked before anything is erased (the file read as a regular file of at most 16 MiB, \
            records, checksums, overlaps, ELF segments in the AVR's address spaces, the MCU, data at or past the \
            bootloader section at 0x7000, code at the reset vector 0x0000, the board's signature); fuses, lock bits \
            and the bootloader are never touched. Without IMAGE: the firmware built with this hapbridge (PREFIX/share/hapbridge/firmware when \
            installed, else the checkout's Firmware/build, made there if missing). The bootloader: --port (a \
            Caterina tty; the tty of a sketch gets the 1200-baud reset and its Caterina is awaited), --device \
            usb:BUS-PORT or usb:SERIAL (a bootloader at that address, or a board running hapbridge firmware, which \
            is sent into its bootloader with ENTER_BOOTLOADER and followed to it on the same port), else the one \
            bootloader, or the one hapbridge board, or the one board running an Arduino sketch (a Pro Micro from \
            the shop, \(BootloaderIdentity.list(BootloaderIdentity.sketches)): its tty gets the 1200-baud reset and its Caterina \
            is awaited), on USB. --wait-for-bootloader S: when none of those is there yet, wait up to S seconds \
            for a bootloader to appear (start flash, then short RST to GND twice: Caterina waits 8 s, and the \
            image is already read, checked and built by then). A board that ran hapbridge firmware is awaited after the \
            flash until its firmware enumerates again and answers HELLO; the version now running is printed. \
            The board's serial number (HELLO_REPLY, iSerialNumber, the key its calibrations are stored under) is a record in its EEPROM (Firmware/PROTOCOL.md, "Board identity"): --serial S writes S there (1 to 20 of [0-9A-Za-z._-]), replacing any serial, after the application is verified and before it starts, and reads it back; without --serial, a board whose firmware reported UNSET (reached through --device or plain flash, which read HELLO first) gets a serial made for it, HB- and 16 random hex digits, printed and in --json, written only where the EEPROM holds none; any other board's EEPROM is left alone. With --dry-run, --serial says what would be written. Progress on standard error (one line per phase when it is not a terminal). --json writes one object \
            on standard output: {"schema": "hapbridge-flash/1", "ok", "dryRun", "mode" ("write" or \
            "verify-only"), "image", "part", "imageBytes", "pages", "start", "end" (flash byte addresses), and when \
            a board was programmed "bootloader" ("caterina" or "atmel-dfu"), "location" (its port or tty), \
            "entry" ("waiting", "1200-baud touch" or "enter-bootloader"), "erased", "writtenBytes", \
            "verifiedBytes", "applicationStarted", "seconds" (per phase), when a serial was asked for or made "serial" (what the EEPROM now holds), "serialSource" ("given" or "derived"), "serialOutcome" ("written", "unchanged": it held it already, "kept": a derived serial not written over the one it held) and "previousEEPROMSerial" (null: none), and after ENTER_BOOTLOADER \
            "previousFirmware" and "firmware" (the version running now); on failure "error" (a kind: bad-image, \
            wrong-part, no-bootloader, protocol, gone, verify-failed, interrupted, application-did-not-start, \
            stopped) and "message", "location" and "entry" once a bootloader was chosen, and once the board was \
            reached what it holds: "application" (untouched, intact, erased, partly-written, written, verified, \
            started), "inBootloader", "bootloader", "erased", "writtenBytes", "written" ([first, last] address \
            pairs), "verifiedBytes"; after a signal "signal". The page with the reset vector (0x0000) is written \
            last: Caterina leaves for the application by itself (8 s after its last command, at once at a \
            power-on) only when 0x0000 holds code, so a write cut short leaves the board in its bootloader. \
            SIGINT, SIGTERM or SIGHUP finishes the block in flight, starts nothing after it (never an erase), \
            says what the board holds and how to recover (during the --device hand-over: the board has left its \
            firmware, nothing erased), prints the record with "error": "stopped", and exits 128 + N; a second \
            signal exits at once. Exit status: 0 flashed (or verified, or checked with --dry-run), 1 failure, 2 \
            usage error, 5 image refused or unreadable (nothing erased), 6 no bootloader found or it did not \
            answer, 7 verify failed, the image's or the serial record's (the board stays in its bootloader: run flash again), 8 the write was \
            interrupted after the erase (unplugged, timed out: the application is partly written, the board is \
            left in its bootloader: run flash again), 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (128 + N \
            whatever the board holds, as a shell reports a death by it: a person stopped it, not a failure).
            """)

    @Argument(help: ArgumentHelp("The image: Intel HEX or ELF (default: the firmware this hapbridge carries).", valueName: "IMAGE"))
    var image: String?

    @Option(help: ArgumentHelp("A Caterina bootloader's serial port (/dev/ttyACMn).", valueName: "PATH"))
    var port: String?

    @Option(
        help: ArgumentHelp(
            "The board by USB address, parsed as every command's --device: usb:BUS-PORT (as `hapbridge list` shows it, e.g. usb:1-2 or usb:1-2.4), "
                + "usb:SERIAL (usb:serial=S for a serial that looks like a port path), or usb (the one on USB).",
            valueName: "address"))
    var device: DeviceArgument?

    @Option(
        help: ArgumentHelp(
            "With nothing to flash on USB yet, wait up to this many seconds for a bootloader to appear (start flash, then double-tap reset).",
            valueName: "seconds"))
    var waitForBootloader: Int?

    @Option(
        help: ArgumentHelp(
            "Write this serial number to the board's EEPROM record (1 to 20 of [0-9A-Za-z._-]), replacing any it holds, and read it back.",
            valueName: "S"))
    var serial: String?

    @Flag(help: "Read back and compare with the image; erase and write nothing.")
    var verifyOnly = false

    @Flag(help: "Load and check the image and say what would be written where; touch no board.")
    var dryRun = false

    @Flag(help: "Write the report as JSON on standard output.")
    var json = false

    /// The longest --wait-for-bootloader: an hour, for a bench where someone walks over.
    static let longestWait = 3600
    static let imageRefused: Int32 = 5
    static let noBootloader: Int32 = 6
    static let verifyFailed: Int32 = 7
    static let interrupted: Int32 = 8

    func validate() throws {
        if port != nil, device != nil { throw ValidationError("give --port or --device, not both") }
        if dryRun, verifyOnly { throw ValidationError("--dry-run touches no board; --verify-only reads one: give one of them") }
        if let serial {
            if verifyOnly { throw ValidationError("--serial writes the board's EEPROM; --verify-only writes nothing: give one of them") }
            do { _ = try BoardSerialNumber(serial) } catch { throw ValidationError("--serial: " + TerminalText.safe(error.description)) }
            // The board would report it as having none, and calibrations would still be refused.
            if serial == BoardSerialNumber.unset.text {
                throw ValidationError("--serial \(serial) is what a board without a serial reports: give the board a serial of its own")
            }
        }
        if let wait = waitForBootloader {
            guard (1...Self.longestWait).contains(wait) else {
                throw ValidationError("--wait-for-bootloader \(wait): give 1 to \(Self.longestWait) seconds")
            }
            if port != nil || device != nil { throw ValidationError("--wait-for-bootloader waits for the one bootloader on USB: give it without --port/--device") }
        }
        // The same parse, and the same usage error for a malformed address, as DeviceOptions'.
        if case .failure(let error)? = device?.parsed { throw ValidationError(TerminalText.safe(error.description)) }
        if let address = device?.address {
            guard case .usb = address else { throw ValidationError("--device \(address): a bootloader is on USB (usb:BUS-PORT or usb:SERIAL)") }
        }
    }

    func run() async throws {
        let part = AVRPart.atmega32u4
        let path: String
        let loaded: FirmwareImage
        // Every way the image cannot be used, an unreadable file included, is one refusal (5).
        do throws(FlashError) {
            if let image { path = image } else { path = try CarriedFirmware.locate() }
            loaded = try FlashPlan.loadImage(path, for: part)
        } catch {
            try fail(error)
        }
        let pages = loaded.pages(of: part)
        let start = pages.first?.address ?? 0, end = (pages.last?.address ?? 0) + part.pageBytes - 1
        var report: [(key: String, value: JSONValue)] = [
            ("schema", .string("hapbridge-flash/1")), ("ok", .bool(true)), ("dryRun", .bool(dryRun)),
            ("mode", .string(verifyOnly ? "verify-only" : "write")), ("image", .string(path)), ("part", .string(part.name)),
            ("imageBytes", .number(Double(loaded.byteCount))), ("pages", .number(Double(pages.count))),
            ("start", .number(Double(start))), ("end", .number(Double(end))),
        ]
        let given = serial.flatMap { try? BoardSerialNumber($0) }
        if dryRun {
            if let given {
                let record = BoardSerialRecord(given).bytes
                report += [("serial", .string(given.text)), ("serialSource", .string(SerialWrite.Source.given.rawValue))]
                if !json {
                    try Console.out(
                        "would write \(loaded.byteCount) bytes of \(path) to the \(part.name): \(pages.count) pages of \(part.pageBytes) bytes, "
                            + "\(Hex.literal(start, width: 4))...\(Hex.literal(end, width: 4)) (the application section ends at \(Hex.literal(part.bootloaderStart - 1, width: 4)))")
                    try Console.out(
                        "then the serial number \(given) to the EEPROM: \(record.count) bytes at EEPROM \(BoardSerialRecord.eepromAddress)...\(BoardSerialRecord.eepromAddress + record.count - 1) ("
                            + Hex.bytes(record, separator: " ") + "), replacing any serial there")
                    return
                }
            }
            if json { try Console.write(JSONWriter.string(.object(report), pretty: false) + "\n", to: .output) } else {
                try Console.out(
                    "would write \(loaded.byteCount) bytes of \(path) to the \(part.name): \(pages.count) pages of \(part.pageBytes) bytes, "
                        + "\(Hex.literal(start, width: 4))...\(Hex.literal(end, width: 4)) (the application section ends at \(Hex.literal(part.bootloaderStart - 1, width: 4)))")
            }
            return
        }
        // From here a board is touched: SIGINT, SIGTERM and SIGHUP finish the block in
        // flight, stop, say what the board holds and exit 128 + N (see `stoppedStatus`).
        let stop = FlashStop()
        Interruption.install(
            stopping: "finishing the block in flight, then stopping", atOnce: " (the board may be left in its bootloader mid-command: run `hapbridge flash` again)")
        Interruption.shared.onInterrupt { stop.request(Interruption.name($0)) }
        let progress = FlashProgress.drawn(terminal: isatty(STDERR_FILENO) == 1) { FileHandle.standardError.write(Data($0.utf8)) }
        var chosen: FlashTarget?
        do {
            // USB events (the board leaving for its bootloader) are expected here: warnings only.
            var logger = Logger(label: "hapbridge.flash")
            logger.logLevel = .warning
            let catalog = DeviceCatalog(logger: logger)
            // The image is read, checked (and the carried firmware built) above, so a wait
            // for the bootloader starts only now: Caterina's 8 s all go to the flash.
            let target = try await FlashTarget.choose(
                port: port, device: device?.address?.description, catalog: catalog, stop: stop, waitingForBootloader: waitForBootloader.map { .seconds($0) },
                announce: { try? Console.err($0) })
            chosen = target
            let serialWrite = verifyOnly ? nil : try target.serialWrite(given: given)
            if let serialWrite, serialWrite.source == .derived {
                try? Console.err(
                    "the board at \(target.location) reported serial UNSET: giving it \(serialWrite.serial) (HB- and 16 random hex digits; "
                        + "choose your own with --serial S), unless its EEPROM holds a serial")
            }
            let flashed = try await target.flash(
                loaded, expected: part, mode: verifyOnly ? .verifyOnly : .write, progress: progress, catalog: catalog, stop: stop, serial: serialWrite)
            let done = flashed.report
            report += [
                ("bootloader", .string(done.bootloader)), ("location", .string(target.location)), ("entry", .string(target.entry)),
                ("erased", .bool(done.erased)), ("writtenBytes", .number(Double(done.writtenBytes))),
                ("verifiedBytes", .number(Double(done.verifiedBytes))), ("applicationStarted", .bool(done.applicationStarted)),
                ("seconds", .object(done.seconds.keys.sorted().map { (key: $0, value: .number(((done.seconds[$0] ?? 0) * 1000).rounded() / 1000)) })),
            ]
            if let s = done.serial, let source = done.serialSource, let outcome = done.serialOutcome {
                report += [
                    ("serial", .string(s)), ("serialSource", .string(source)), ("serialOutcome", .string(outcome)),
                    ("previousEEPROMSerial", done.previousEEPROMSerial.map { .string($0) } ?? .null),
                ]
            }
            // A board that ran hapbridge firmware is followed back to it.
            let running = flashed.firmware
            if let previous = target.previousFirmware, let now = running {
                report += [("previousFirmware", .string(previous)), ("firmware", .string(now))]
            }
            if json { try Console.write(JSONWriter.string(.object(report), pretty: false) + "\n", to: .output) } else {
                try Console.out(
                    "\(verifyOnly ? "verified" : "flashed") \(done.imageBytes) bytes of \(path) on \(target.location) (\(done.bootloader), \(done.part)), "
                        + "verified \(done.verifiedBytes) bytes" + (done.applicationStarted ? "; the application started" : ""))
                if let s = done.serial, let outcome = done.serialOutcome {
                    switch outcome {
                    case SerialWrite.Outcome.written.rawValue:
                        try Console.out("serial number \(s) written to the EEPROM and read back" + (done.previousEEPROMSerial.map { " (it held \($0))" } ?? ""))
                    case SerialWrite.Outcome.kept.rawValue:
                        try Console.out("the EEPROM holds serial number \(s): kept (give --serial S to replace it)")
                    default: try Console.out("the EEPROM holds serial number \(s) already: nothing written")
                    }
                }
                if let running, let port = target.port {
                    try Console.out("usb:\(port.path) now runs hapbridge firmware \(running) (it ran \(target.previousFirmware ?? "?"))")
                }
            }
        } catch let e as FlashError { try fail(e, target: chosen) }
    }

    /// A flash stopped by signal N exits 128 + N, as `play` and the shell report a death
    /// by it, whatever the board was left holding: the status says a person (or a CI
    /// runner's timeout) stopped it, not that the board failed, so a script that retries
    /// on 8 does not fight a Ctrl-C; what the board holds is in the message and the JSON.
    static func stoppedStatus() -> Int32 { Interruption.exitStatus(Interruption.shared.signal ?? SIGINT) }

    private func fail(_ error: FlashError, target: FlashTarget? = nil) throws -> Never {
        if json {
            var fields: [(key: String, value: JSONValue)] = [
                ("schema", .string("hapbridge-flash/1")), ("ok", .bool(false)), ("error", .string(error.kind.rawValue)), ("message", .string(error.message)),
            ]
            if error.kind == .stopped, let signal = Interruption.shared.signalName { fields.append(("signal", .string(signal))) }
            if let target { fields += [("location", .string(target.location)), ("entry", .string(target.entry))] }
            if let left = error.left { fields += Self.fields(left) }
            try? Console.write(JSONWriter.string(.object(fields), pretty: false) + "\n", to: .output)
        }
        try? Console.err("Error: " + HapbridgeCommand.oneLine(error.message))
        switch error.kind {
        case .badImage, .wrongPart: throw ExitCode(Self.imageRefused)
        case .noBootloader: throw ExitCode(Self.noBootloader)
        case .verifyFailed: throw ExitCode(Self.verifyFailed)
        case .interrupted: throw ExitCode(Self.interrupted)
        case .stopped: throw ExitCode(Self.stoppedStatus())
        default: throw ExitCode.failure
        }
    }

    /// What the board was left holding, as the JSON record's fields.
    static func fields(_ left: FlashLeft) -> [(key: String, value: JSONValue)] {
        [
            ("application", .string(left.application.rawValue)), ("inBootloader", .bool(left.inBootloader)),
            ("bootloader", left.bootloader.map { .string($0) } ?? .null),
            ("erased", .bool(![.untouched, .intact].contains(left.application))), ("writtenBytes", .number(Double(left.writtenBytes))),
            ("written", .array(left.written.map { .array([.number(Double($0.lowerBound)), .number(Double($0.upperBound))]) })),
            ("verifiedBytes", .number(Double(left.verifiedBytes))),
        ]
    }
}
