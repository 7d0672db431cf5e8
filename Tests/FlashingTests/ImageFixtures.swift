import FirmwareImage
import Foundation

/// Hand-made images: Intel HEX records with their checksums computed here, and a
/// minimal AVR ELF (header + program headers, no sections), so each rule is pinned by
/// a file a test can read byte by byte.
enum Fixtures {
    /// One Intel HEX record, checksum included.
    static func record(_ type: UInt8, _ offset: Int, _ data: [UInt8], checksumDelta: UInt8 = 0) -> String {
        let bytes = [UInt8(data.count), UInt8(offset >> 8), UInt8(offset & 0xFF), type] + data
        let sum = (0 &- bytes.reduce(UInt8(0), &+)) &+ checksumDelta
        return ":" + (bytes + [sum]).map { String(format: "%02X", $0) }.joined()
    }

    static func hex(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }

    static let eof = ":00000001FF"

    /// An ELF32 LE with `machine`, `flags` and PT_LOAD segments (physical address, bytes).
    static func elf(machine: UInt16 = 83, flags: UInt32 = 0x85, segments: [(physical: Int, bytes: [UInt8])]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 52)
        out.replaceSubrange(0..<8, with: [0x7F, 0x45, 0x4C, 0x46, 1, 1, 1, 0])
        func put16(_ v: Int, _ at: Int) { out[at] = UInt8(v & 0xFF); out[at + 1] = UInt8(v >> 8 & 0xFF) }
        func put32(_ v: Int, _ at: Int) { for i in 0..<4 { out[at + i] = UInt8(v >> (8 * i) & 0xFF) } }
        put16(2, 16)  // ET_EXEC
        put16(Int(machine), 18)
        put32(1, 20)
        put32(52, 28)  // e_phoff
        put32(Int(flags), 36)
        put16(52, 40)
        put16(32, 42)
        put16(segments.count, 44)
        var dataOffset = 52 + 32 * segments.count
        out += [UInt8](repeating: 0, count: 32 * segments.count)
        for (i, s) in segments.enumerated() {
            let at = 52 + 32 * i
            put32(1, at)
            put32(dataOffset, at + 4)
            put32(s.physical, at + 8)
            put32(s.physical, at + 12)
            put32(s.bytes.count, at + 16)
            put32(s.bytes.count, at + 20)
            dataOffset += s.bytes.count
        }
        for s in segments { out += s.bytes }
        return out
    }

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
        }
        return "."
    }()

    /// The project's firmware as `make -C Firmware firmware` leaves it.
    static let firmwareHex = packageRoot + "/Firmware/build/hapbridge-32u4.hex"
    static let firmwareELF = packageRoot + "/Firmware/build/hapbridge-32u4.elf"
    static var firmwareBuilt: Bool { FileManager.default.fileExists(atPath: firmwareHex) && FileManager.default.fileExists(atPath: firmwareELF) }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}
