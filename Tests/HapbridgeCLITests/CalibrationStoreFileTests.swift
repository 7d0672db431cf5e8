import FileAccess
import Foundation
import Testing

/// The calibration store through the built executable: what is at a store file's path
/// is judged by the bounded reader, and `calibrate` that cannot store its results says
/// where and why and exits 1, after printing them.
@Suite struct CalibrationStoreFileTests {
    /// Where `play` on the simulated board looks for pmd-c10-100's calibration.
    static func storeFile(in config: URL) throws -> String {
        let directory = config.appendingPathComponent("hapbridge/calibration")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("SIMULATED@pmd-c10-100.json").path
    }

    static func play(config: URL) throws -> HapbridgeRun {
        try Hapbridge.run(["play", "impact.heavy", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: config.path)
    }

    @Test("A store file that links to a 2 GiB file is refused by its size, quickly and with the limit named, not read")
    func aLinkToAHugeFileIsRefused() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = try Self.storeFile(in: scratch), big = scratch.appendingPathComponent("big").path
        let fd = open(big, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0 && ftruncate(fd, 2 << 30) == 0, "a sparse file: nothing is written")
        close(fd)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: big)
        // Hapbridge.run caps the address space at 2 GiB: reading the target would fail.
        let started = Date()
        let run = try Self.play(config: scratch)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("drive: open loop (\(file): 2147483648 bytes; a calibration file is at most 65536 bytes)"), "\(run.out)")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("A FIFO or /dev/zero as the store file is refused as what it is, not as a permission problem")
    func devicesAndFIFOsAreNamed() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = try Self.storeFile(in: scratch)
        try #require(mkfifo(file, 0o600) == 0)
        let fifo = try Self.play(config: scratch)
        #expect(fifo.status == 0 && fifo.out.contains("\(file): cannot read (it is a FIFO, not a regular file)"), "\(fifo.out)")
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/dev/zero")
        let zero = try Self.play(config: scratch)
        #expect(zero.status == 0 && zero.out.contains("\(file): cannot read (it is a character device, not a regular file)"), "\(zero.out)")
    }

    @Test("calibrate that cannot store its results prints them, then one error naming the file and the cause, and exits 1")
    func unstorableResultsFailTheCommand() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A file where the configuration directory should be: refused even as root.
        let blocker = scratch.appendingPathComponent("config-file")
        try Data().write(to: blocker)
        let run = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: blocker.path)
        #expect(run.status == 1, "\(run.err)")
        #expect(run.out.contains("auto-calibration: PASS") && run.out.contains("store and write back after a reset"), "results first")
        let directory = blocker.path + "/hapbridge/calibration"
        #expect(
            run.errLines.last == "Error: calibration results not stored in \(directory)/SIMULATED@pmd-c10-100.json: "
                + "cannot create the directory \(directory): \(blocker.path) is not a directory", "\(run.err)")
    }

    @Test("A configuration directory whose name is too long is said with its length and the limit, not \"file name is invalid\"")
    func longNamesAreMeasured() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent(String(repeating: "n", count: 300)).path
        let run = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: config)
        #expect(run.status == 1)
        #expect(run.errLines.last?.hasSuffix(": a directory name in the path is too long (300 bytes, the file system allows 255)") == true, "\(run.err)")
        #expect(!run.err.contains("NSCocoaErrorDomain") && !run.err.contains("invalid"))
    }

    @Test("The store's directory is created 0700 and its file through the safe writer, which keeps an existing file's mode")
    func storeModes() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let first = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: scratch.path)
        #expect(first.status == 0, "\(first.err)")
        var info = stat()
        for directory in ["hapbridge", "hapbridge/calibration"] {
            try #require(stat(scratch.appendingPathComponent(directory).path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700, "\(directory)")
        }
        let file = scratch.appendingPathComponent("hapbridge/calibration/SIMULATED@pmd-c10-100.json").path
        try #require(chmod(file, 0o640) == 0)
        let again = try Hapbridge.run(["calibrate", "--device", "sim", "--actuator", "pmd-c10-100"], configHome: scratch.path)
        #expect(again.status == 0, "\(again.err)")
        try #require(stat(file, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
    }
}
