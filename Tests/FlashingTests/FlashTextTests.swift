import Foundation
import Testing

/// What `hapbridge flash` prints, through the built executable: the dry run's one
/// line, and progress on a standard error that is not a terminal (a log, a pipe):
/// one line per phase, never a carriage-return redraw.
@Suite("flash text: --dry-run and progress off a terminal")
struct FlashTextTests {
    static var ready: Bool { FileManager.default.fileExists(atPath: DFURun.firmwareHex) || DFURun.firmwareRequired }

    @Test("--dry-run says what would be written where in one line (bytes, image, part, pages, range, the application section's end) and touches no board",
          .enabled(if: ready, "make -C Firmware firmware"))
    func dryRunText() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Two pages: 0x0000..0x00FF written, 3 bytes into the second page.
        let hex = dir.appendingPathComponent("two-pages.hex").path
        try DFURun.intelHex([UInt8](repeating: 0x0C, count: 131)).write(toFile: hex, atomically: true, encoding: .utf8)
        let run = try DFURun.emulate("'\(DFURun.hapbridge)' flash --dry-run '\(hex)'", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(
            run.output == "would write 131 bytes of \(hex) to the atmega32u4: 2 pages of 128 bytes, 0x0000...0x00FF (the application section ends at 0x6FFF)\n",
            "\(run)")
        #expect(run.errors.contains("0 erase(s), 0 page(s) written, 0 byte(s) read"), "the dry run touched the board: \(run)")
    }

    @Test("progress on a standard error that is not a terminal: a line as erase, write and verify start and one as each ends (bytes, seconds, rate); no carriage returns",
          .enabled(if: ready, "make -C Firmware firmware"))
    func progressLinesOffATerminal() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try DFURun.emulate("'\(DFURun.hapbridge)' flash '\(DFURun.firmwareHex)'", in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(!run.errors.contains("\r"), "\(run)")
        let progress = run.errors.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("hapbridge emulate:") }
        #expect(progress.count == 6, "\(run)")
        for (i, phase) in ["erase", "write", "verify"].enumerated() where progress.count == 6 {
            #expect(progress[2 * i].hasPrefix(phase) && progress[2 * i].hasSuffix(" bytes"), "\(progress)")
            #expect(progress[2 * i + 1].hasPrefix(phase) && progress[2 * i + 1].contains(" done: ") && progress[2 * i + 1].contains("KiB/s"), "\(progress)")
        }
    }
}
