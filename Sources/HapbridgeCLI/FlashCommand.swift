import ArgumentParser
import FileAccess
import FirmwareImage
import Flashing
import Foundation
import Synchronization
import USBBridge

/// `hapbridge flash IMAGE`: program a board in its bootloader (Caterina for now) with
/// a checked image: read part, check, erase, write, verify, start (`FlashPlan`).
struct FlashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flash",
        abstract: "Write a firmware image (Intel HEX or ELF) to a board in its Caterina bootloader, verified by reading back.",
        discussion: """
            The image is checked before anything is erased (records, checksums, overlaps, the MCU, data at or past \
            the bootloader section at 0x7000, the board's signature). The port: --port, or the one Caterina \
            bootloader found by VID:PID. Progress on standard error; --json writes the report on standard output. \
            Exit status: 0 flashed (or verified, or checked with --dry-run), 1 failure, 2 usage error, \
            5 image refused (nothing erased), 6 no bootloader found or it did not answer, 7 verify failed \
            (the board stays in its bootloader: run flash again).
            """)

    @Argument(help: ArgumentHelp("The image: Intel HEX or ELF.", valueName: "IMAGE"))
    var image: String

    @Option(help: ArgumentHelp("The bootloader's serial port (a Caterina board's /dev/ttyACMn).", valueName: "PATH"))
    var port: String?

    @Option(help: ArgumentHelp("Reserved for choosing a board among several (usb:BUS-PORT); not supported yet with a bootloader.", valueName: "address"))
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

    func run() throws {
        let part = AVRPart.atmega32u4
        let loaded: FirmwareImage
        do {
            let bytes = try FileReader.read(FilePath(image), limit: FirmwareImageFile.byteLimit)
            do { loaded = try FirmwareImageFile.image(bytes, source: image, part: part) } catch { throw FlashError(error) }
        } catch let e as FileAccessError {
            try? Console.err("Error: \(e.description)")
            throw ExitCode.failure
        } catch let e as FlashError {
            try fail(e)
        }
        let pages = loaded.pages(of: part)
        if dryRun {
            let where_ = "\(pages.count) pages of \(part.pageBytes) bytes, \(String(format: "0x%04X", pages.first?.address ?? 0))...\(String(format: "0x%04X", (pages.last?.address ?? 0) + part.pageBytes - 1))"
            if json {
                print(#"{"dryRun":true,"image":"\#(jsonEscape(image))","part":"\#(part.name)","imageBytes":\#(loaded.byteCount),"pages":\#(pages.count)}"#)
            } else {
                print("would write \(loaded.byteCount) bytes of \(image) to the \(part.name): \(where_)")
            }
            return
        }
        let path: String
        if let port { path = port } else {
            let found = CaterinaPort.find(identities: USBKnownIdentity.identities(of: .caterinaBootloader).map { ($0.vendorID, $0.productID) })
            guard found.count == 1, let only = found.first else {
                try fail(FlashError(.noBootloader, found.isEmpty
                    ? "no Caterina bootloader found (2341:0036, 2341:0037, 1B4F:9205): put the board in its bootloader (a Pro Micro has no reset button: short RST to GND twice) and run flash within 8 s, or give --port"
                    : "several Caterina bootloaders (\(found.joined(separator: ", "))): give --port"))
            }
            path = only
        }
        // Redrawn only when the bar moves (every 5 %), so a log holds ~20 lines a phase.
        let lastDrawn = Mutex<String>("")
        let progress = FlashProgress { phase, done, total in
            let percent = total > 0 ? done * 100 / total : 100
            let key = "\(phase.rawValue) \(percent / 5)"
            guard lastDrawn.withLock({ last in defer { last = key }; return last != key || done == total }) else { return }
            let bar = String(repeating: "#", count: percent / 5) + String(repeating: " ", count: 20 - percent / 5)
            FileHandle.standardError.write(Data("\r\(phase.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) [\(bar)] \(done)/\(total) bytes\(done == total ? "\n" : "")".utf8))
        }
        do {
            let programmer = try CaterinaProgrammer(port: path)
            let report = try FlashPlan.run(image: loaded, expected: part, programmer: programmer, mode: verifyOnly ? .verifyOnly : .write, progress: progress)
            if json {
                let seconds = report.seconds.keys.sorted().map { "\"\($0)\":\(String(format: "%.3f", report.seconds[$0] ?? 0))" }.joined(separator: ",")
                print(#"{"ok":true,"port":"\#(jsonEscape(path))","bootloader":"\#(report.bootloader)","part":"\#(report.part)","image":"\#(jsonEscape(report.image))","imageBytes":\#(report.imageBytes),"pages":\#(report.pages),"erased":\#(report.erased),"writtenBytes":\#(report.writtenBytes),"verifiedBytes":\#(report.verifiedBytes),"applicationStarted":\#(report.applicationStarted),"seconds":{\#(seconds)}}"#)
            } else {
                print("\(verifyOnly ? "verified" : "flashed") \(report.imageBytes) bytes of \(image) on \(path) (\(report.bootloader), \(report.part)), verified \(report.verifiedBytes) bytes")
            }
        } catch { try fail(error) }
    }

    private func fail(_ error: FlashError) throws -> Never {
        if json { print(#"{"ok":false,"error":"\#(error.kind.rawValue)","message":"\#(jsonEscape(error.message))"}"#) }
        try? Console.err("Error: " + HapbridgeCommand.oneLine(error.message))
        switch error.kind {
        case .badImage, .wrongPart: throw ExitCode(Self.imageRefused)
        case .noBootloader: throw ExitCode(Self.noBootloader)
        case .verifyFailed: throw ExitCode(Self.verifyFailed)
        default: throw ExitCode.failure
        }
    }

    private func jsonEscape(_ s: String) -> String {
        s.unicodeScalars.map { c -> String in
            switch c {
            case "\"": "\\\""
            case "\\": "\\\\"
            case _ where c.value < 0x20: String(format: "\\u%04x", c.value)
            default: String(c)
            }
        }.joined()
    }
}
