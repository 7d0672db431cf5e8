import FileAccess
import Foundation
import Testing

@testable import HapbridgeCLI

/// `--output`, `--plot` and `library export --output`: one type, one set of rules.
@Suite struct OutputFileTests {
    static let sos = Hapbridge.path("Examples/SOS.ahap")

    func mode(_ path: String) throws -> mode_t {
        var info = stat()
        try #require(lstat(path, &info) == 0)
        return info.st_mode
    }

    @Test("An existing regular file is replaced with its permission bits kept")
    func existingFileKeepsItsMode() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("kept.svg").path
        for (bits, arguments) in [(0o600 as mode_t, ["render", Self.sos, "-o", target]), (0o640, ["library", "export", "impact.heavy", "--output", target])] {
            try Data("old".utf8).write(to: URL(fileURLWithPath: target))
            try #require(chmod(target, bits) == 0)
            let run = try Hapbridge.run(arguments)
            #expect(run.status == 0, "\(run.err)")
            #expect(try mode(target) & 0o7777 == bits)
            #expect(try mode(target) & S_IFMT == S_IFREG)
            #expect(try String(contentsOfFile: target, encoding: .utf8) != "old")
        }
    }

    @Test("A new file is created with the default mode (0666 less the umask) and no temporary file is left")
    func newFileGetsTheDefaultMode() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("new.csv").path
        let run = try Hapbridge.run(["render", Self.sos, "-f", "csv", "-o", target])
        #expect(run.status == 0)
        let mask = umask(0)
        umask(mask)
        #expect(try mode(target) & 0o777 == 0o666 & ~mask)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["new.csv"])
    }

    @Test("A symbolic link is written through: the link stays and its target gets the data")
    func symbolicLinksAreWrittenThrough() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let real = directory.appendingPathComponent("real.svg").path
        let link = directory.appendingPathComponent("link.svg").path
        try Data().write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let run = try Hapbridge.run(["render", Self.sos, "-o", link])
        #expect(run.status == 0)
        #expect(try mode(link) & S_IFMT == S_IFLNK)
        #expect(try String(contentsOfFile: real, encoding: .utf8).hasPrefix("<svg"))
    }

    @Test("A FIFO is written through: its reader gets the data and it stays a FIFO")
    func fifosAreWrittenThrough() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("plot.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reader opens the FIFO (which waits for the writer) and reads to the end,
        // on a thread of its own: the test's task blocks waiting for the process.
        let received = LockedBytes()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let fd = open(fifo, O_RDONLY)
            received.set((try? DescriptorIO.read(fd, upTo: 1 << 24)) ?? [])
            close(fd)
            done.signal()
        }
        let run = try Hapbridge.run(["render", Self.sos, "-f", "csv", "-o", fifo])
        done.wait()
        #expect(run.status == 0, "\(run.err)")
        #expect(String(decoding: received.value, as: UTF8.self).hasPrefix("kind,time_ms,intensity,sharpness\n"))
        #expect(try mode(fifo) & S_IFMT == S_IFIFO)
    }

    @Test("Devices, FIFOs and links are classified write-through, regular files replace")
    func classification() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try OutputFile(nil, purpose: "output")
        #expect(output.isStandardOutput)
        for device in ["/dev/null", "/dev/full", "/dev/zero"] {
            guard case .writeThrough = try OutputFile(device, purpose: "output").destination(of: device) else {
                Issue.record("\(device) would be replaced")
                continue
            }
        }
        let regular = directory.appendingPathComponent("r.svg").path
        guard case .replace(existing: nil) = try OutputFile(regular, purpose: "output").destination(of: regular) else {
            Issue.record("a new file is replaced atomically")
            return
        }
    }

    @Test("A directory, a missing directory or a file where a directory should be is one clear line")
    func badLocationsSayWhatIsWrong() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file").path
        try Data().write(to: URL(fileURLWithPath: file))
        let cases: [(String, String)] = [
            (directory.path, "it is a directory"),
            (directory.appendingPathComponent("missing/out.svg").path, "no such directory \(directory.path)/missing"),
            (file + "/out.svg", "\(file) is not a directory"),
            (file + "/sub/out.svg", "part of \(file)/sub is not a directory"),
        ]
        for (target, reason) in cases {
            #expect(throws: CLIError("cannot write the output to \(target): \(reason)")) { try OutputFile(target, purpose: "output") }
        }
    }

    @Test("The output location is checked before the pattern is read or rendered")
    func locationIsCheckedBeforeTheWork() throws {
        // An unreadable pattern and an unwritable output: the output is the error.
        let run = try Hapbridge.run(["render", "no-such-pattern", "-o", "/no/such/dir/x.svg"])
        #expect(run.status == 1)
        #expect(run.err.contains("no such directory /no/such/dir"))
        let play = try Hapbridge.run(["play", "impact.heavy", "--plot", "/no/such/dir/p.svg"])
        #expect(play.status == 1 && play.out.isEmpty, "nothing played before the check")
    }

    @Test("Writing to /dev/null leaves it a character device")
    func devNullStaysADevice() throws {
        guard case .writeThrough = try OutputFile("/dev/null", purpose: "output").destination(of: "/dev/null") else {
            Issue.record("/dev/null must be written through, never replaced")
            return
        }
        let run = try Hapbridge.run(["render", Self.sos, "-o", "/dev/null"])
        #expect(run.status == 0)
        #expect(try mode("/dev/null") & S_IFMT == S_IFCHR)
    }
}

/// Bytes handed from the FIFO's reader thread to the test.
final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    func set(_ value: [UInt8]) { lock.withLock { bytes = value } }
    var value: [UInt8] { lock.withLock { bytes } }
}
