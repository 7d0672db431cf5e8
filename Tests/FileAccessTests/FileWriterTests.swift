import FileAccess
import Foundation
import Synchronization
import Testing

@Suite struct FileWriterTests {
    let scratch: String

    init() throws {
        scratch = NSTemporaryDirectory() + "fileaccess-write-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    func status(_ path: String) throws -> stat {
        var info = stat()
        try #require(lstat(path, &info) == 0)
        return info
    }

    func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test("A regular file is replaced with its mode kept and no temporary left")
    func regularFilesKeepTheirMode() throws {
        let path = scratch + "/private.log"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, 0o600) == 0)
        let inode = try status(path).st_ino
        try FileWriter.write("new", to: FilePath(path))
        #expect(contents(path) == "new")
        #expect(try status(path).st_mode & 0o7777 == 0o600)
        #expect(try status(path).st_ino != inode, "replaced, not rewritten in place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch) == ["private.log"])
    }

    @Test("A stream not committed leaves the target as it was and no temporary")
    func uncommittedStreamsLeaveNothing() throws {
        let path = scratch + "/kept"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        do {
            let stream = try FileStream(FilePath(path))
            try stream.append("partial")
        }
        #expect(contents(path) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch) == ["kept"])
    }

    @Test("A stream written in place keeps the inode and mode, and holds each append at once")
    func inPlaceStreams() throws {
        let path = scratch + "/live.log"
        try Data("old old old".utf8).write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, 0o600) == 0)
        let inode = try status(path).st_ino
        let stream = try FileStream(FilePath(path), regularFile: .writtenInPlace)
        try stream.append("one\n")
        #expect(contents(path) == "one\n")
        try stream.commit()
        #expect(try status(path).st_ino == inode)
        #expect(try status(path).st_mode & 0o7777 == 0o600)
    }

    @Test("Devices and links are written through; a full device is an error naming it")
    func writeThrough() throws {
        #expect(try FileWriter.destination(of: "/dev/null") == .writeThrough)
        try FileWriter.write("x", to: "/dev/null")
        #expect(try status("/dev/null").st_mode & S_IFMT == S_IFCHR)
        let real = scratch + "/real", link = scratch + "/link"
        try Data().write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        try FileWriter.write("through", to: FilePath(link))
        #expect(try status(link).st_mode & S_IFMT == S_IFLNK)
        #expect(contents(real) == "through")
        #expect(throws: FileAccessError(.write, "/dev/full", .system(ENOSPC))) { try FileWriter.write("x", to: "/dev/full") }
        #expect("\(FileAccessError(.write, "/dev/full", .system(ENOSPC)))" == "cannot write /dev/full: No space left on device")
    }

    @Test("A FIFO nobody opens is waited for until `giveUp` gives a reason: noReader, nothing written, still a FIFO")
    func aFIFOWithoutAReaderIsGivenUp() throws {
        let fifo = scratch + "/nobody.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let asked = Mutex(0)
        // Asked while it waits: the third time, a reason (as a signal would give one).
        let giveUp: DescriptorIO.GiveUp = { asked.withLock { $0 += 1; return $0 >= 3 ? "interrupted by SIGINT" : nil } }
        #expect(throws: FileAccessError(.write, FilePath(fifo), .noReader(giveUp: "interrupted by SIGINT"))) {
            try FileWriter.write("lost", to: FilePath(fifo), giveUp: giveUp)
        }
        #expect(asked.withLock { $0 } == 3)
        #expect(try status(fifo).st_mode & S_IFMT == S_IFIFO)
    }

    @Test("A FIFO whose reader stops reading is written until `giveUp` gives a reason: readerStalled")
    func aStalledReaderIsGivenUp() throws {
        let fifo = scratch + "/stalled.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        // A reader that opens and never reads: the pipe fills, then the write waits.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let asked = Mutex(0)
        let giveUp: DescriptorIO.GiveUp = { asked.withLock { $0 += 1; return $0 >= 2 ? "interrupted by SIGTERM" : nil } }
        #expect(throws: FileAccessError(.write, FilePath(fifo), .readerStalled(giveUp: "interrupted by SIGTERM"))) {
            try FileWriter.write([UInt8](repeating: 0x41, count: 1 << 20), to: FilePath(fifo), giveUp: giveUp)
        }
    }

    @Test("Directories are made with the mode asked, missing parents too; a file in the way is named")
    func directories() throws {
        let deep = scratch + "/a/b/c"
        try FileWriter.makeDirectories(FilePath(deep), mode: 0o700)
        #expect(try status(deep).st_mode & 0o777 == 0o700)
        #expect(try status(scratch + "/a").st_mode & 0o777 == 0o700)
        try Data().write(to: URL(fileURLWithPath: scratch + "/file"))
        #expect(throws: FileAccessError.self) { try FileWriter.makeDirectories(FilePath(scratch + "/file/sub"), mode: 0o700) }
        let long = scratch + "/" + String(repeating: "d", count: 300) + "/x"
        do throws(FileAccessError) { try FileWriter.makeDirectories(FilePath(long), mode: 0o700) } catch {
            #expect(error.problem == .nameTooLong(bytes: 300, allowed: 255, isLast: false))
            #expect(error.problem.description == "a directory name in the path is too long (300 bytes, the file system allows 255)")
        }
    }

    @Test("A file name that is not UTF-8 is created under its own bytes")
    func nonUTF8Names() throws {
        let bytes = Array((scratch + "/o-").utf8) + [0xE9] + Array(".svg".utf8)
        try FileWriter.write("svg", to: FilePath(bytes: bytes))
        #expect(FileReader.names(in: FilePath(scratch)).map(\.bytes) == [Array("o-".utf8) + [0xE9] + Array(".svg".utf8)])
    }
}
