import Foundation
import Haptics
import Testing

@testable import HapbridgeCLI

/// Reading a pattern (or a profile) says what the path is, stops at the size limit
/// whatever `stat` reports, and takes `-` as standard input.
@Suite struct InputFileTests {
    static let sos = Hapbridge.path("Examples/SOS.ahap")

    @Test("A directory, a FIFO and a device are named for what they are, not as permission or lookup failures")
    func nonFilesSayWhatTheyAre() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pattern.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(throws: InputFile.Failure.directory(directory.path)) { try InputFile.read(directory.path, limit: 100) }
        #expect(throws: InputFile.Failure.notRegular(fifo, kind: "a FIFO")) { try InputFile.read(fifo, limit: 100) }
        #expect(throws: InputFile.Failure.notRegular("/dev/zero", kind: "a character device")) { try InputFile.read("/dev/zero", limit: 100) }
        #expect(throws: InputFile.Failure.noSuchFile(directory.appendingPathComponent("none").path)) {
            try InputFile.read(directory.appendingPathComponent("none").path, limit: 100)
        }
        // The same words through the CLI, one line each.
        for (path, words) in [(directory.path, "is a directory"), (fifo, "is not a regular file (a FIFO)"), ("/dev/zero", "is not a regular file (a character device)")] {
            let run = try Hapbridge.run(["render", path])
            #expect(run.status == 1 && run.errLines.count == 1 && run.err.contains(words), "\(path): \(run.err)")
        }
    }

    @Test("A file over the limit is refused, its size read or not: /proc/self/pagemap reports 0 bytes and never ends")
    func readingStopsAtTheLimit() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.ahap").path
        try Data(repeating: 0x20, count: 1001).write(to: URL(fileURLWithPath: file))
        #expect(throws: InputFile.Failure.tooLarge(file, limit: 1000)) { try InputFile.read(file, limit: 1000) }
        #expect(try InputFile.read(file, limit: 1001).count == 1001)
        #expect(throws: InputFile.Failure.tooLarge("/proc/self/pagemap", limit: 1 << 20)) { try InputFile.read("/proc/self/pagemap", limit: 1 << 20) }
        let run = try Hapbridge.run(["render", "/proc/self/pagemap"])
        let limit = PatternLimits().json.maxBytes
        #expect(run.status == 1 && run.err == "Error: /proc/self/pagemap is larger than the limit of \(InputFile.bytes(limit))\n")
    }

    @Test("- reads the pattern from standard input, bounded like a file")
    func standardInput() throws {
        let sos = try Data(contentsOf: URL(fileURLWithPath: Self.sos))
        let run = try Hapbridge.run(["render", "-", "-f", "csv"], stdin: Array(sos))
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.split(separator: "\n").filter { $0.hasPrefix("transient,") }.count == 6)
        let svg = try Hapbridge.run(["render", "-"], stdin: Array(sos))
        #expect(svg.out.contains(">(standard input)</text>"))

        let limit = PatternLimits().json.maxBytes
        let tooMuch = try Hapbridge.run(["render", "-"], stdin: [UInt8](repeating: 0x20, count: limit + 1))
        #expect(tooMuch.status == 1 && tooMuch.err == "Error: (standard input) is larger than the limit of \(InputFile.bytes(limit))\n")
    }

    @Test("An actuator profile path that is a directory or a device is refused before the loader reads it")
    func profilePathsAreChecked() throws {
        for (path, words) in [("/dev/zero", "is not a regular file (a character device)"), ("/tmp", "is a directory")] {
            let run = try Hapbridge.run(["diagnose", "--actuator", path])
            #expect(run.status == 1 && run.errLines.count == 1 && run.err.contains(words), "\(path): \(run.err)")
        }
    }
}
