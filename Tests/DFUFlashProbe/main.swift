import DeviceInterface
import FirmwareImage
import Flashing
import Foundation

// What FlashingTests runs as COMMAND under `hapbridge emulate dfu`: the product's
// Atmel DFU programmer (`AtmelDFUProgrammer`) on real libusb, one line per step
// ("step key=value ..."), until `hapbridge flash` drives it (FlashPlan).
//
//   dfu-flash-probe flash HEX [--device usb:BUS-PORT]   signature, erase (+ blank check),
//                                                       write, verify by read-back, start
//   dfu-flash-probe write-at ADDRESS                     erase, then one page of 0x00 at ADDRESS
//   dfu-flash-probe write-unerased ADDRESS               one page of 0x00 at ADDRESS, no erase first
//   dfu-flash-probe read ADDRESS COUNT                   read flash (no erase first)
//   dfu-flash-probe signature
//
// Exit status: 0 done, 1 a FlashError (line "error kind=... message=\"...\""), 2 usage
// or an unreadable HEX file.

/// Intel HEX records 00 (data), 01 (end), 02 and 04 (segment / linear base), with
/// their checksums: enough for the firmware's own image until the image loaders
/// (FirmwareImage's IntelHex) are in.
func loadHex(_ path: String) throws -> FirmwareImage {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var runs: [FirmwareImage.Run] = []
    var base = 0
    for (n, raw) in text.split(whereSeparator: \.isNewline).enumerated() {
        let line = raw.trimmingCharacters(in: .whitespaces)
        guard line.hasPrefix(":"), line.count % 2 == 1 else { throw ProbeError("\(path) line \(n + 1): not an Intel HEX record") }
        var bytes: [UInt8] = []
        var i = line.index(after: line.startIndex)
        while i < line.endIndex {
            let j = line.index(i, offsetBy: 2)
            guard let b = UInt8(line[i..<j], radix: 16) else { throw ProbeError("\(path) line \(n + 1): not hex") }
            bytes.append(b)
            i = j
        }
        guard bytes.count >= 5, bytes.count == Int(bytes[0]) + 5, bytes.reduce(0, &+) == 0 else {
            throw ProbeError("\(path) line \(n + 1): bad length or checksum")
        }
        let data = Array(bytes[4..<(bytes.count - 1)])
        let offset = Int(bytes[1]) << 8 | Int(bytes[2])
        switch bytes[3] {
        case 0x00:
            if let last = runs.last, last.end == base + offset { runs[runs.count - 1].bytes += data } else { runs.append(.init(address: base + offset, bytes: data)) }
        case 0x01: return FirmwareImage(source: path, runs: runs)
        case 0x02, 0x04:
            guard data.count == 2 else { throw ProbeError("\(path) line \(n + 1): a base address record holds 2 bytes") }
            base = (Int(data[0]) << 8 | Int(data[1])) << (bytes[3] == 0x02 ? 4 : 16)
        default: break
        }
    }
    return FirmwareImage(source: path, runs: runs)
}

struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func milliseconds(since start: ContinuousClock.Instant) -> String {
    let d = ContinuousClock.now - start
    let ms = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    return String(format: "%.1f", ms)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var selector = DeviceAddress.USBSelector.any
if let i = arguments.firstIndex(of: "--device"), i + 1 < arguments.count {
    guard case .usb(let s)? = try? DeviceAddress(parsing: arguments[i + 1]) else {
        say("usage: --device takes usb:BUS-PORT")
        exit(2)
    }
    selector = s
    arguments.removeSubrange(i...(i + 1))
}

do {
    switch (arguments.first, arguments.count) {
    case ("flash", 2):
        let image: FirmwareImage
        do { image = try loadHex(arguments[1]) } catch {
            say("usage: \(error)")
            exit(2)
        }
        let total = ContinuousClock.now
        let dfu = try AtmelDFUProgrammer(selector: selector)
        let part = try dfu.readPart()
        say("part name=\(part.name) location=\(dfu.location)")
        var t = ContinuousClock.now
        try dfu.eraseApplication(progress: .silent)
        say("erase ms=\(milliseconds(since: t))")
        let pages = image.pages(of: part)
        t = ContinuousClock.now
        try dfu.write(pages: pages, progress: .silent)
        say("write pages=\(pages.count) bytes=\(image.byteCount) ms=\(milliseconds(since: t))")
        t = ContinuousClock.now
        // Read back all of the application section, as dfu-programmer's own verify does.
        let back = try dfu.read(address: 0, count: part.applicationBytes, progress: .silent)
        var expected = [UInt8](repeating: 0xFF, count: part.applicationBytes)
        for page in pages { expected.replaceSubrange(page.address..<(page.address + page.bytes.count), with: page.bytes) }
        guard back == expected else {
            let first = back.indices.first { back[$0] != expected[$0] } ?? 0
            throw FlashError(.verifyFailed, "read-back differs from the image at 0x\(String(first, radix: 16))")
        }
        say("verify bytes=\(back.count) ms=\(milliseconds(since: t))")
        try dfu.startApplication()
        say("start total_ms=\(milliseconds(since: total))")
    case ("write-at", 2):
        guard let address = Int(arguments[1].replacingOccurrences(of: "0x", with: ""), radix: 16) else {
            say("usage: write-at takes a hex address")
            exit(2)
        }
        let dfu = try AtmelDFUProgrammer(selector: selector)
        try dfu.eraseApplication(progress: .silent)
        let part = AVRPart.atmega32u4
        try dfu.write(pages: [(address, [UInt8](repeating: 0, count: part.pageBytes))], progress: .silent)
        say("write ok address=0x\(String(address, radix: 16))")
        // Still answering after a refusal would have been cleared: read the page back.
        let back = try dfu.read(address: address, count: part.pageBytes, progress: .silent)
        say("read first=\(back.first.map { String($0) } ?? "-")")
    case ("write-unerased", 2):
        guard let address = Int(arguments[1].replacingOccurrences(of: "0x", with: ""), radix: 16) else {
            say("usage: write-unerased takes a hex address")
            exit(2)
        }
        let dfu = try AtmelDFUProgrammer(selector: selector)
        try dfu.write(pages: [(address, [UInt8](repeating: 0, count: AVRPart.atmega32u4.pageBytes))], progress: .silent)
        say("write ok address=0x\(String(address, radix: 16))")
    case ("read", 3):
        guard let address = Int(arguments[1].replacingOccurrences(of: "0x", with: ""), radix: 16), let count = Int(arguments[2]) else {
            say("usage: read takes a hex address and a byte count")
            exit(2)
        }
        let dfu = try AtmelDFUProgrammer(selector: selector)
        let bytes = try dfu.read(address: address, count: count, progress: .silent)
        say("read bytes=\(bytes.count)")
    case ("signature", 1):
        let dfu = try AtmelDFUProgrammer(selector: selector)
        say("part name=\(try dfu.readPart().name) location=\(dfu.location)")
    default:
        say("usage: dfu-flash-probe flash HEX | write-at ADDRESS | write-unerased ADDRESS | read ADDRESS COUNT | signature  [--device usb:BUS-PORT]")
        exit(2)
    }
} catch let error as FlashError {
    say("error kind=\(error.kind.rawValue) message=\"\(error.message)\"")
    exit(1)
}
catch {
    say("error kind=other message=\"\(error)\"")
    exit(1)
}
