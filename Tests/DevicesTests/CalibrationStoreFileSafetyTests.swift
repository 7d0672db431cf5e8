import Actuators
import Devices
import Foundation
import Testing

/// The store reads through the bounded reader and writes through the safe writer:
/// what is at a file's path is judged by what it is, never read past the limit.
@Suite("The calibration store's files: bounded reads, safe writes")
struct CalibrationStoreFileSafetyTests {
    typealias Scratch = CalibrationStoreTests.Scratch

    func fileFor(_ scratch: Scratch) throws -> String {
        try FileManager.default.createDirectory(atPath: scratch.store.directory, withIntermediateDirectories: true)
        return scratch.store.path(for: try CalibrationKey(boardSerial: "HB-0001", actuatorID: "pmd-c10-100"))
    }

    @Test("a file that links to a 2 GiB sparse file is refused by its size, without reading it")
    func linksAreJudgedByTheirTarget() throws {
        let scratch = try Scratch()
        let file = try fileFor(scratch), big = scratch.path + "/big"
        let fd = open(big, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0 && ftruncate(fd, 2 << 30) == 0)
        close(fd)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: big)
        #expect(throws: CalibrationStoreError.tooLarge(file: file, bytes: 2 << 30, limit: CalibrationStore.maxBytes)) {
            try scratch.store.load(boardSerial: "HB-0001", profile: CalibrationStoreTests.profile())
        }
    }

    @Test("a FIFO or a link to /dev/zero is refused as what it is, not as a permission problem")
    func specialFilesAreNamed() throws {
        let scratch = try Scratch()
        let file = try fileFor(scratch)
        try #require(mkfifo(file, 0o600) == 0)
        #expect(throws: CalibrationStoreError.unreadable(file: file, reason: "it is a FIFO, not a regular file")) {
            try scratch.store.load(boardSerial: "HB-0001", profile: CalibrationStoreTests.profile())
        }
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/dev/zero")
        #expect(throws: CalibrationStoreError.unreadable(file: file, reason: "it is a character device, not a regular file")) {
            try scratch.store.load(boardSerial: "HB-0001", profile: CalibrationStoreTests.profile())
        }
    }

    @Test("the directory is created 0700; saving again keeps the file's mode")
    func modes() throws {
        let scratch = try Scratch()
        let file = try scratch.store.save(try CalibrationStoreTests.record())
        var info = stat()
        for directory in [scratch.path + "/hapbridge", scratch.store.directory] {
            try #require(stat(directory, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700, "\(directory)")
        }
        try #require(chmod(file, 0o600) == 0)
        try scratch.store.save(try CalibrationStoreTests.record(measuredAt: 1_795_100_000))
        try #require(stat(file, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o600)
    }

    @Test("a store that cannot be written says which file and why, in words")
    func unwritableStoresSayWhy() throws {
        let scratch = try Scratch()
        try Data().write(to: URL(fileURLWithPath: scratch.path + "/hapbridge"))
        let record = try CalibrationStoreTests.record()
        do throws(CalibrationStoreError) {
            try scratch.store.save(record)
            Issue.record("a file where the directory should be")
        } catch {
            let file = scratch.store.directory + "/HB-0001@pmd-c10-100.json"
            #expect(error == .unwritable(file: file, reason: "cannot create the directory \(scratch.store.directory): \(scratch.path)/hapbridge is not a directory"))
        }
    }
}
