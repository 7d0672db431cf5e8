import FileAccess
import Foundation
import Testing

/// `emulate bridge --log PATH` writes through the one safe writer: whatever is at PATH
/// stays what it is, a regular file keeps its mode, and a log that cannot be written
/// fails the run (125, the emulation-failed status) with one line naming the file.
@Suite struct EmulationLogFileTests {
    /// A short run whose COMMAND does nothing: the boards' start-up is logged.
    static func emulate(log: String) throws -> Shell.Run {
        try Shell.run("\"$HB\" emulate bridge --firmware core --log \(Shell.quote(log)) -- true")
    }

    func status(_ path: String) throws -> stat {
        var info = stat()
        try #require(lstat(path, &info) == 0)
        return info
    }

    @Test("--log /dev/null leaves it a character device")
    func devNullStaysADevice() throws {
        let before = try status("/dev/null")
        let run = try Self.emulate(log: "/dev/null")
        #expect(run.status == 0, "\(run)")
        let after = try status("/dev/null")
        #expect(after.st_mode & S_IFMT == S_IFCHR && after.st_rdev == before.st_rdev && after.st_ino == before.st_ino)
    }

    @Test("--log to a FIFO: its reader gets the log's lines and it stays a FIFO")
    func fifoReaderGetsTheLines() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("log.fifo").path, received = directory.appendingPathComponent("received").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reader in the background; the script waits for it, so its file is complete.
        let run = try Shell.run(
            "cat \(Shell.quote(fifo)) >\(Shell.quote(received)) & reader=$!; "
                + "\"$HB\" emulate bridge --firmware core --log \(Shell.quote(fifo)) -- true; status=$?; wait $reader; exit $status")
        #expect(run.status == 0, "\(run)")
        #expect(try status(fifo).st_mode & S_IFMT == S_IFIFO)
        let lines = try String(contentsOfFile: received, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix("{") == true && lines.contains { $0.contains("\"event\":\"plug\"") }, "\(lines.prefix(3))")
    }

    @Test("--log to a FIFO whose reader leaves: the run fails with 125 and \"Broken pipe\", not killed by SIGPIPE")
    func fifoReaderLeaving() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("log.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reader opens the FIFO (the emulation's open waits for it) and closes it at
        // once; COMMAND waits for it to be gone, then plugs a board: a line to the log
        // with no reader.
        let command = "while kill -0 $reader 2>/dev/null; do :; done; \"$HB\" emulate control add --serial LATE-1 >/dev/null"
        let run = try Shell.run(
            "(exec 3<\(Shell.quote(fifo)); exec 3<&-) & reader=$!; export reader; "
                + "\"$HB\" emulate bridge --firmware core --log \(Shell.quote(fifo)) -- sh -c \(Shell.quote(command)); echo \"status $?\"",
            environment: [:])
        #expect(run.out == "status 125\n", "\(run)")
        #expect(run.errLines == ["Error: cannot write the log to \(fifo): Broken pipe"], "\(run)")
    }

    @Test("--log to a symbolic link: the link stays a link and its target gets the log")
    func linksAreWrittenThrough() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target.jsonl").path, link = directory.appendingPathComponent("link.jsonl").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let run = try Self.emulate(log: link)
        #expect(run.status == 0, "\(run)")
        #expect(try status(link).st_mode & S_IFMT == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try EmulationLogEntries.events(target).contains("plug"))
    }

    @Test("--log to a 0600 file: it stays 0600 and holds the log")
    func privateFilesStayPrivate() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("private.jsonl").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: log))
        try #require(chmod(log, 0o600) == 0)
        let run = try Self.emulate(log: log)
        #expect(run.status == 0, "\(run)")
        #expect(try status(log).st_mode & 0o7777 == 0o600)
        #expect(try status(log).st_mode & S_IFMT == S_IFREG)
        #expect(try EmulationLogEntries.events(log).contains("plug"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["private.jsonl"])
    }

    @Test("--log /dev/full: the run fails with 125 and one line naming the file and the cause")
    func aFullDeviceFailsTheRun() throws {
        let run = try Self.emulate(log: "/dev/full")
        #expect(run.status == 125, "\(run)")
        #expect(run.errLines == ["Error: cannot write the log to /dev/full: No space left on device"], "\(run)")
    }

    @Test("--log to a directory or a missing directory is refused before the emulation starts")
    func badLocationsAreRefused() throws {
        let run = try Self.emulate(log: "/no/such/dir/log.jsonl")
        #expect(run.status == 125, "\(run)")
        #expect(run.errLines == ["Error: cannot write the log to /no/such/dir/log.jsonl: no such directory /no/such/dir"], "\(run)")
    }
}

/// `emulate ft232h --log` and `emulate dfu --dump`, written when COMMAND has ended, are
/// checked before it starts: a path that cannot be written costs no run (125, one line
/// naming it, COMMAND never started), and a FIFO whose reader is COMMAND itself works.
@Suite struct EmulationResultFileTests {
    @Test("emulate ft232h --log and emulate dfu --dump to a directory or a missing directory: 125 and one Error: line naming the path, and COMMAND never runs")
    func unwritablePathsFailBeforeCommand() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = directory.appendingPathComponent("command-ran").path
        let cases: [(emulation: String, option: String, path: String, says: String)] = [
            ("ft232h", "--log", directory.path, "it is a directory"), ("ft232h", "--log", "/no/such/dir/i2c.jsonl", "no such directory /no/such/dir"),
            ("dfu", "--dump", directory.path, "it is a directory"), ("dfu", "--dump", "/no/such/dir/flash.bin", "no such directory /no/such/dir"),
        ]
        for c in cases {
            let run = try Shell.run(
                "\"$HB\" emulate \(c.emulation) \(c.option) \(Shell.quote(c.path)) -- touch \(Shell.quote(marker)); echo \"status $?\"")
            #expect(run.out == "status 125\n", "\(c): \(run)")
            #expect(run.errLines == ["Error: \(c.option) \(c.path): cannot write \(c.path): \(c.says)"], "\(c): \(run)")
            #expect(!FileManager.default.fileExists(atPath: marker), "\(c): COMMAND ran")
        }
    }

    @Test("emulate dfu --dump to a FIFO that COMMAND reads: the reader gets the whole flash (32 KiB) once COMMAND has ended, and the FIFO stays a FIFO")
    func fifoReadByCommand() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("flash.fifo").path, received = directory.appendingPathComponent("received").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // COMMAND leaves its reader behind; the script waits for it, so its file is complete.
        let run = try Shell.run(
            "\"$HB\" emulate dfu --dump \(Shell.quote(fifo)) -- sh -c 'cat \"$1\" >\"$2\" & echo $! >\"$2.pid\"' sh \(Shell.quote(fifo)) \(Shell.quote(received)); "
                + "status=$?; reader=$(cat \(Shell.quote(received)).pid); while kill -0 $reader 2>/dev/null; do sleep 0.05; done; exit $status")
        #expect(run.status == 0, "\(run)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: received)))?.count == 32 * 1024, "\(run)")
    }
}

/// A log file's `event` fields, read with the bounded reader.
enum EmulationLogEntries {
    static func events(_ path: String) throws -> [String] {
        let text = String(decoding: try FileReader.read(FilePath(path), limit: 1 << 26), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return object["event"] as? String
        }
    }
}
