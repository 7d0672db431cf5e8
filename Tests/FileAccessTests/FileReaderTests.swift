import FileAccess
import Foundation
import Testing

@Suite struct FileReaderTests {
    let scratch: String

    init() throws {
        scratch = NSTemporaryDirectory() + "fileaccess-read-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    func problem(reading path: FilePath, limit: Int = 1 << 16) -> FileProblem? {
        do { _ = try FileReader.read(path, limit: limit) } catch { return error.problem }
        return nil
    }

    @Test("A regular file is read whole, up to the limit")
    func readsRegularFiles() throws {
        let path = scratch + "/a.json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try FileReader.read(FilePath(path), limit: 2) == Array("{}".utf8))
        #expect(problem(reading: FilePath(path), limit: 1) == .tooLarge(limit: 1, size: 2))
    }

    @Test("A link to a huge sparse file is judged by its target: refused by its size, nothing read")
    func linksAreJudgedByTheirTarget() throws {
        let big = scratch + "/big", link = scratch + "/link.json"
        let fd = open(big, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0 && ftruncate(fd, 2 << 30) == 0)
        close(fd)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: big)
        #expect(problem(reading: FilePath(link)) == .tooLarge(limit: 1 << 16, size: 2 << 30))
    }

    @Test("A FIFO, a device and a directory are refused as what they are, without blocking")
    func nonRegularFilesAreNamed() throws {
        let fifo = scratch + "/p.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(problem(reading: FilePath(fifo)) == .notRegular(.fifo))
        #expect(problem(reading: "/dev/zero") == .notRegular(.characterDevice))
        #expect(problem(reading: FilePath(scratch)) == .isDirectory)
        #expect(problem(reading: FilePath(scratch + "/none")) == .noSuchFile)
        #expect("\(FileProblem.notRegular(.fifo))" == "it is a FIFO, not a regular file")
    }

    @Test("A file that says 0 bytes and never ends costs the limit, not the file")
    func endlessFilesAreBounded() {
        #expect(problem(reading: "/proc/self/pagemap", limit: 1 << 20) == .tooLarge(limit: 1 << 20, size: nil))
    }

    @Test("A name too long is said with its length and the file system's limit")
    func longNamesAreMeasured() {
        let name = String(repeating: "n", count: 300)
        #expect(problem(reading: FilePath(scratch + "/" + name)) == .nameTooLong(bytes: 300, allowed: 255, isLast: true))
        #expect("\(FileProblem.nameTooLong(bytes: 300, allowed: 255, isLast: true))" == "the file name is too long (300 bytes, the file system allows 255)")
    }

    @Test("A name that is not UTF-8 is opened by its bytes")
    func nonUTF8Names() throws {
        let bytes = Array((scratch + "/x").utf8) + [0xE9] + Array(".ahap".utf8)
        let fd = (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) }
        try #require(fd >= 0)
        _ = write(fd, "hi", 2)
        close(fd)
        let decoded = ArgumentText.string(from: bytes)
        #expect(try FileReader.read(FilePath(decoded), limit: 10) == Array("hi".utf8))
        #expect(FileReader.names(in: FilePath(scratch)).map(\.bytes) == [Array("x".utf8) + [0xE9] + Array(".ahap".utf8)])
    }
}
