import ArgumentParser
import FileAccess
import FirmwareImage
import Flashing
import Foundation
import JSON
import DeviceInterface
import Synchronization
import USBBridge

/// `hapbridge flash [IMAGE]`: program a board in its bootloader (Caterina over its
/// serial port, Atmel DFU over libusb) with a checked image: read part, check, erase,
/// write, verify, start (`FlashPlan`). With no IMAGE, the firmware this hapbridge
/// carries (`CarriedFirmware`).
struct FlashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flash",
        abstract: "Write firmware (Intel HEX or ELF; by default the image this hapbridge carries) to a board in its Caterina or Atmel DFU bootloader, verified by reading back.",
        discussion: """
            The image is checked before anything is erased (records, checksums, overlaps, the MCU, data at or past \
            the bootloader section at 0x7000, the board's signature); fuses, lock bits and the bootloader are never \
            touched. Without IMAGE: the firmware built with this hapbridge (PREFIX/share/hapbridge/firmware when \
            installed, else the checkout's Firmware/build, made there if missing). The bootloader: --port (a \
            Caterina tty), --device usb:BUS-PORT or usb:SERIAL (an Atmel DFU bootloader or a Caterina one at that \
            port), else the one bootloader on USB. Progress on standard error. --json writes one object on \
            standard output: {"schema": "hapbridge-flash/1", "ok", "dryRun", "mode" ("write" or "verify-only"), \
            "image", "part", "imageBytes", "pages", "start", "end" (flash byte addresses), and when a board was \
            programmed "bootloader" ("caterina" or "atmel-dfu"), "location" (its port or tty), "erased", \
            "writtenBytes", "verifiedBytes", "applicationStarted", "seconds" (per phase); on failure "error" (a \
            kind: bad-image, wrong-part, no-bootloader, protocol, gone, verify-failed) and "message"}. \
            Exit status: 0 flashed (or verified, or checked with --dry-run), 1 failure, 2 usage error, \
            5 image refused (nothing erased), 6 no bootloader found or it did not answer, 7 verify failed \
            (the board stays in its bootloader: run flash again).
            """)

    @Argument(help: ArgumentHelp("The image: Intel HEX or ELF (default: the firmware this hapbridge carries).", valueName: "IMAGE"))
    var image: String?

    @Option(help: ArgumentHelp("A Caterina bootloader's serial port (/dev/ttyACMn).", valueName: "PATH"))
    var port: String?

    @Option(help: ArgumentHelp("The bootloader by USB address: usb:BUS-PORT (as `hapbridge list` shows it) or usb:SERIAL.", valueName: "address"))
    var device: String?

    @Flag(help: "Read back and compare with the image; erase and write nothing.")
    var verifyOnly = false

    @Flag(help: "Load and check the image and say what would be written where; touch no board.")
    var dryRun = false

    @Flag(help: "Write the report as JSON on standard output.")
    var json = false

    static let imageRefused: Int32 = 5
    static let noBootloader: Int32 = 6
    static let verifyFailed: Int32 = 7

    func validate() throws {
        if port != nil, device != nil { throw ValidationError("give --port or --device, not both") }
        if dryRun, verifyOnly { throw ValidationError("--dry-run touches no board; --verify-only reads one: give one of them") }
        if let device {
            do {
                guard case .usb = try DeviceAddress(parsing: device) else { throw ValidationError("--device \(device): a bootloader is on USB (usb:BUS-PORT or usb:SERIAL)") }
            } catch let e as ValidationError { throw e } catch { throw ValidationError("--device \(device): \(error)") }
        }
    }

    func run() throws {
        let part = AVRPart.atmega32u4
        let path: String
        let loaded: FirmwareImage
        do {
            path = try image ?? CarriedFirmware.locate()
            let bytes = try FileReader.read(FilePath(path), limit: FirmwareImageFile.byteLimit)
            do { loaded = try FirmwareImageFile.image(bytes, source: path, part: part) } catch { throw FlashError(error) }
        } catch let e as FileAccessError {
            try? Console.err("Error: \(e.description)")
            throw ExitCode.failure
        } catch let e as FlashError {
            try fail(e)
        }
        let pages = loaded.pages(of: part)
        let start = pages.first?.address ?? 0, end = (pages.last?.address ?? 0) + part.pageBytes - 1
        var report: [(key: String, value: JSONValue)] = [
            ("schema", .string("hapbridge-flash/1")), ("ok", .bool(true)), ("dryRun", .bool(dryRun)),
            ("mode", .string(verifyOnly ? "verify-only" : "write")), ("image", .string(path)), ("part", .string(part.name)),
            ("imageBytes", .number(Double(loaded.byteCount))), ("pages", .number(Double(pages.count))),
            ("start", .number(Double(start))), ("end", .number(Double(end))),
        ]
        if dryRun {
            if json { try Console.write(JSONWriter.string(.object(report), pretty: false) + "\n", to: .output) } else {
                try Console.out(
                    "would write \(loaded.byteCount) bytes of \(path) to the \(part.name): \(pages.count) pages of \(part.pageBytes) bytes, "
                        + String(format: "0x%04X...0x%04X", start, end) + String(format: " (the application section ends at 0x%04X)", part.bootloaderStart - 1))
            }
            return
        }
        let progress = Self.progressBar()
        do {
            let (programmer, location) = try chooseProgrammer()
            let done = try FlashPlan.run(image: loaded, expected: part, programmer: programmer, mode: verifyOnly ? .verifyOnly : .write, progress: progress)
            report += [
                ("bootloader", .string(done.bootloader)), ("location", .string(location)), ("erased", .bool(done.erased)),
                ("writtenBytes", .number(Double(done.writtenBytes))), ("verifiedBytes", .number(Double(done.verifiedBytes))),
                ("applicationStarted", .bool(done.applicationStarted)),
                ("seconds", .object(done.seconds.keys.sorted().map { (key: $0, value: .number(((done.seconds[$0] ?? 0) * 1000).rounded() / 1000)) })),
            ]
            if json { try Console.write(JSONWriter.string(.object(report), pretty: false) + "\n", to: .output) } else {
                try Console.out(
                    "\(verifyOnly ? "verified" : "flashed") \(done.imageBytes) bytes of \(path) on \(location) (\(done.bootloader), \(done.part)), "
                        + "verified \(done.verifiedBytes) bytes" + (done.applicationStarted ? "; the application started" : ""))
            }
        } catch let e as FlashError { try fail(e) }
    }

    /// The bootloader to program: --port (Caterina), --device (whichever bootloader is
    /// at that USB address), else the only one on USB.
    private func chooseProgrammer() throws(FlashError) -> (any BootloaderProgrammer, String) {
        if let port { return (try CaterinaProgrammer(port: port), port) }
        let caterinaIDs = USBKnownIdentity.identities(of: .caterinaBootloader).map { ($0.vendorID, $0.productID) }
        if let device {
            guard case .usb(let selector)? = try? DeviceAddress(parsing: device) else { throw FlashError(.noBootloader, "--device \(device) is not a USB address") }
            if case .port(let bus, let ports) = selector,
                let tty = CaterinaPort.find(identities: caterinaIDs, port: DeviceAddress.portPath(bus: bus, ports: ports)).first
            {
                return (try CaterinaProgrammer(port: tty), tty)
            }
            let dfu = try AtmelDFUProgrammer(selector: selector)
            return (dfu, dfu.location)
        }
        let ttys = CaterinaPort.find(identities: caterinaIDs)
        let dfus = AtmelDFUProgrammer.locations()
        switch (ttys.count, dfus.count) {
        case (1, 0): return (try CaterinaProgrammer(port: ttys[0]), ttys[0])
        case (0, 1):
            let dfu = try AtmelDFUProgrammer(selector: .any)
            return (dfu, dfu.location)
        case (0, 0):
            throw FlashError(
                .noBootloader,
                "no bootloader found on USB (Caterina 2341:0036, 2341:0037, 1B4F:9205; Atmel DFU 03EB:2FF4): put the board in its bootloader "
                    + "(a Pro Micro has no reset button: short RST to GND twice) and run flash within 8 s, or give --port/--device")
        default:
            throw FlashError(.noBootloader, "several bootloaders (\((ttys + dfus.map { "usb:" + $0 }).joined(separator: ", "))): choose one with --port or --device")
        }
    }

    /// A bar on standard error, redrawn only when it moves (every 5 %): a log holds ~20
    /// lines a phase.
    static func progressBar() -> FlashProgress {
        let lastDrawn = Mutex<String>("")
        return FlashProgress { phase, done, total in
            let percent = total > 0 ? done * 100 / total : 100
            let key = "\(phase.rawValue) \(percent / 5)"
            guard lastDrawn.withLock({ last in defer { last = key }; return last != key || done == total }) else { return }
            let bar = String(repeating: "#", count: percent / 5) + String(repeating: " ", count: 20 - percent / 5)
            FileHandle.standardError.write(Data("\r\(phase.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) [\(bar)] \(done)/\(total) bytes\(done == total ? "\n" : "")".utf8))
        }
    }

    private func fail(_ error: FlashError) throws -> Never {
        if json {
            let object = JSONValue.object([
                ("schema", .string("hapbridge-flash/1")), ("ok", .bool(false)), ("error", .string(error.kind.rawValue)), ("message", .string(error.message)),
            ])
            try? Console.write(JSONWriter.string(object, pretty: false) + "\n", to: .output)
        }
        try? Console.err("Error: " + HapbridgeCommand.oneLine(error.message))
        switch error.kind {
        case .badImage, .wrongPart: throw ExitCode(Self.imageRefused)
        case .noBootloader: throw ExitCode(Self.noBootloader)
        case .verifyFailed: throw ExitCode(Self.verifyFailed)
        default: throw ExitCode.failure
        }
    }
}
