import Foundation
import Testing

/// `hapbridge emulate caterina` programmed by Debian's avrdude (avr109) and by
/// `hapbridge flash`, through the built executable, with the project's firmware.
@Suite("Caterina emulation: avrdude and hapbridge flash")
struct CaterinaTests {
    static let firmwareHex = Emulate.packageRoot + "/Firmware/build/hapbridge-32u4.hex"
    static var ready: Bool { FileManager.default.fileExists(atPath: firmwareHex) && ChildProcessPath.find("avrdude") != nil }

    @Test("avrdude -c avr109 writes and verifies the firmware, and its read-back holds the image", .enabled(if: ready, "make -C Firmware firmware; avrdude"))
    func avrdudeWritesAndReadsBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("caterina-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try Emulate.run([
            Emulate.hapbridge, "emulate", "caterina", "--", "avrdude", "-c", "avr109", "-p", "atmega32u4", "-P", "/dev/ttyACM0",
            "-U", "flash:w:\(Self.firmwareHex):i", "-U", "flash:r:\(dir)/out.hex:i",
        ])
        #expect(run.status == 0, "\(run)")
        #expect(run.errors.contains("bytes of flash verified"), "\(run)")
        // The read-back (avrdude trims trailing 0xFF) holds the image byte for byte.
        let image = try Self.bytes(of: Self.firmwareHex)
        let back = try Self.bytes(of: dir + "/out.hex")
        #expect(Array(back.prefix(image.count)) == image)
    }

    @Test("hapbridge flash finds the port by VID:PID, writes and verifies, reports JSON; an oversized image is refused with exit 5 and nothing erased",
          .enabled(if: ready, "make -C Firmware firmware; avrdude"))
    func hapbridgeFlash() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("caterina-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 28 KiB + 1 byte: one byte into the bootloader section.
        var big = ""
        for a in stride(from: 0, to: 0x7001, by: 16) {
            let data = [UInt8](repeating: 0x5A, count: min(16, 0x7001 - a))
            let rec = [UInt8(data.count), UInt8(a >> 8), UInt8(a & 0xFF), 0] + data
            big += ":" + (rec + [0 &- rec.reduce(UInt8(0), &+)]).map { String(format: "%02X", $0) }.joined() + "\n"
        }
        big += ":00000001FF\n"
        try big.write(toFile: dir + "/big.hex", atomically: true, encoding: .utf8)
        let h = Emulate.hapbridge
        let script = """
            \(h) flash \(Self.firmwareHex) --json; echo "status=$?"
            \(h) flash \(dir)/big.hex --port /dev/ttyACM0 --json; echo "status=$?"
            avrdude -q -q -c avr109 -p atmega32u4 -P /dev/ttyACM0 -U flash:r:\(dir)/out.hex:i
            """
        let run = try Emulate.run([h, "emulate", "caterina", "--", "sh", "-c", script])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(run)")
        guard lines.count == 4 else { return }
        let report = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(report?["ok"] as? Bool == true)
        #expect(report?["bootloader"] as? String == "caterina")
        #expect(report?["verifiedBytes"] as? Int == report?["writtenBytes"] as? Int)
        #expect(lines[1] == "status=0")
        let refusal = try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any]
        #expect(refusal?["error"] as? String == "bad-image")
        #expect(lines[3] == "status=5")
        #expect(run.errors.contains("big.hex: data at 0x7000"), "\(run)")
        // Nothing was erased: the board still holds the firmware the first flash wrote.
        let image = try Self.bytes(of: Self.firmwareHex)
        #expect(Array(try Self.bytes(of: dir + "/out.hex").prefix(image.count)) == image)
    }

    /// The bytes from address 0 of an Intel HEX file with data records only from 0 up.
    static func bytes(of path: String) throws -> [UInt8] {
        var out: [UInt8] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where line.hasPrefix(":") {
            let digits = Array(line.dropFirst())
            var b: [UInt8] = []
            var i = 0
            while i + 1 < digits.count {
                b.append(UInt8(String(digits[i...i + 1]), radix: 16) ?? 0)
                i += 2
            }
            guard b.count >= 5, b[3] == 0 else { continue }
            let address = Int(b[1]) << 8 | Int(b[2])
            if out.count < address { out += [UInt8](repeating: 0xFF, count: address - out.count) }
            let data = Array(b[4..<(4 + Int(b[0]))])
            if out.count == address { out += data } else { out.replaceSubrange(address..<min(out.count, address + data.count), with: data) }
        }
        return out
    }
}

enum ChildProcessPath {
    static func find(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
