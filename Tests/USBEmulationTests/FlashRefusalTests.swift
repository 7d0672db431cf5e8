import Foundation
import Testing

extension EmulatedBoards {
    /// `hapbridge flash` refuses an image it cannot use — a file that cannot be read
    /// as much as one that breaks a rule — the same way: status 5, one JSON record
    /// with "bad-image" and the path, one `Error:` line naming it, and the board in its
    /// bootloader is never spoken to (the emulated Caterina counts 0 commands).
    @Suite
    struct FlashRefusalTests {
        static let firmwareHex = Emulate.packageRoot + "/Firmware/build/hapbridge-32u4.hex"

        /// An ELF32 for the AVR (avr5), its PT_LOAD segments at these load addresses.
        static func elf(_ segments: [(loadAddress: UInt32, bytes: [UInt8])]) -> [UInt8] {
            func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
            func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) } }
            var header: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 1, 1, 1, 0] + [UInt8](repeating: 0, count: 8)
            header += le16(2) + le16(83) + le32(1) + le32(0) + le32(52) + le32(0) + le32(0x85)
            header += le16(52) + le16(32) + le16(segments.count) + le16(40) + le16(0) + le16(0)
            var offset = UInt32(52 + 32 * segments.count)
            var table: [UInt8] = []
            for s in segments {
                let n = UInt32(s.bytes.count)
                table += le32(1) + le32(offset) + le32(s.loadAddress) + le32(s.loadAddress) + le32(n) + le32(n) + le32(5) + le32(2)
                offset += n
            }
            return header + table + segments.flatMap(\.bytes)
        }

        @Test(
            "a FIFO, a directory, /dev/zero, a symlink loop, a missing file, a file over 16 MiB, an ELF segment at load address 0xFFFFFF00, an ELF and a HEX with nothing at 0x0000: each exits 5 with a bad-image record naming it, and the bootloader hears nothing",
            .enabled(if: FileManager.default.fileExists(atPath: firmwareHex), "make -C Firmware firmware"))
        func unusableImagesAreRefusedAlike() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flash-refusal-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try #require(mkfifo(dir + "/fifo.hex", 0o600) == 0)
            try FileManager.default.createSymbolicLink(atPath: dir + "/loop-a.hex", withDestinationPath: dir + "/loop-b.hex")
            try FileManager.default.createSymbolicLink(atPath: dir + "/loop-b.hex", withDestinationPath: dir + "/loop-a.hex")
            // One byte over the limit, sparse: the size alone refuses it.
            try #require(FileManager.default.createFile(atPath: dir + "/huge.hex", contents: nil))
            let huge = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/huge.hex"))
            try huge.truncate(atOffset: 16 * 1024 * 1024 + 1)
            try huge.close()
            let jmp: [UInt8] = [0x0C, 0x94, 0x34, 0x00]
            // The code where no AVR address space is, 48 bytes of data in flash at 0x30.
            try Data(Self.elf([(0xFFFF_FF00, jmp + [UInt8](repeating: 0, count: 124)), (0x30, [UInt8](repeating: 0x11, count: 48))]))
                .write(to: URL(fileURLWithPath: dir + "/nowhere.elf"))
            try Data(Self.elf([(0x100, jmp)])).write(to: URL(fileURLWithPath: dir + "/no-vector.elf"))
            try ":040100000C94340027\n:00000001FF\n".write(toFile: dir + "/no-vector.hex", atomically: true, encoding: .utf8)
            let cases: [(path: String, says: String)] = [
                (dir + "/fifo.hex", "it is a FIFO"), (dir, "it is a directory"), ("/dev/zero", "it is a character device"),
                (dir + "/loop-a.hex", "symbolic links"), (dir + "/missing.hex", "no such file"), (dir + "/huge.hex", "larger than the limit of 16 MiB"),
                (dir + "/nowhere.elf", "load at 0xFFFFFF00, in none of the AVR's address spaces"),
                (dir + "/no-vector.elf", "no code at the reset vector 0x0000"), (dir + "/no-vector.hex", "no code at the reset vector 0x0000"),
            ]
            let script = cases.map { "\(Emulate.hapbridge) flash '\($0.path)' --port /dev/ttyACM0 --json 2>>errors.txt; echo status=$?" }.joined(separator: "\n")
            let run = try Emulate.run([Emulate.hapbridge, "emulate", "caterina", "--image", Self.firmwareHex, "--", "sh", "-c", "cd \(dir) && " + script + "\ncat errors.txt >&2"])
            #expect(run.status == 0, "\(run)")
            let lines = run.output.split(separator: "\n").map(String.init)
            try #require(lines.count == 2 * cases.count, "\(run)")
            let errors = run.errors.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
            #expect(errors.count == cases.count, "one Error: line each: \(run)")
            for (i, c) in cases.enumerated() {
                let record = try JSONSerialization.jsonObject(with: Data(lines[2 * i].utf8)) as? [String: Any]
                #expect(record?["ok"] as? Bool == false && record?["error"] as? String == "bad-image", "\(c.path): \(lines[2 * i])")
                let message = record?["message"] as? String ?? ""
                #expect(message.contains(c.path) && message.contains(c.says) && message.hasSuffix("(nothing was erased)"), "\(c.path): \(message)")
                #expect(lines[2 * i + 1] == "status=5", "\(c.path): \(run)")
                #expect(errors.count > i && errors[i].contains(c.path), "\(c.path): \(run)")
            }
            // Refused before the board: the bootloader was not spoken to at all.
            #expect(run.errors.contains("caterina: 0 commands"), "\(run)")
        }
    }
}
