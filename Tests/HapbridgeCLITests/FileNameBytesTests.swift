import FileAccess
import Foundation
import Testing

/// Paths are bytes: a name that is not UTF-8 (here Latin-1 é, byte 0xE9) is read and
/// written as given, never repaired to U+FFFD into another name, and shown escaped.
@Suite struct FileNameBytesTests {
    static let sos = Hapbridge.path("Examples/SOS.ahap")

    /// `x\xE9.ahap` in a script: printf makes the byte, the shell passes it as is.
    static func shellName(_ prefix: String, _ suffix: String) -> String { "\"$(printf '\(prefix)\\351\(suffix)')\"" }
    static func bytes(_ prefix: String, _ suffix: String) -> [UInt8] { Array(prefix.utf8) + [0xE9] + Array(suffix.utf8) }

    @Test("render reads a pattern whose name is not UTF-8 and writes -o under the very name given")
    func namesRoundTrip() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pattern = try FileReader.read(FilePath(Self.sos), limit: 1 << 20)
        try FileWriter.write(pattern, to: FilePath(directory.path).appending(FilePath(bytes: Self.bytes("x", ".ahap"))))
        let run = try Shell.run("\"$HB\" render \(Self.shellName("x", ".ahap")) -o \(Self.shellName("o-", ".svg"))", directory: directory.path)
        #expect(run.status == 0, "\(run)")
        let names = Set(FileReader.names(in: FilePath(directory.path)).map(\.bytes))
        #expect(names == [Self.bytes("x", ".ahap"), Self.bytes("o-", ".svg")], "no other file, no U+FFFD name")
        let svg = try FileReader.read(FilePath(directory.path).appending(FilePath(bytes: Self.bytes("o-", ".svg"))), limit: 1 << 24)
        #expect(String(decoding: svg, as: UTF8.self).hasPrefix("<svg"))
        #expect(run.errLines.last == "wrote o-\\xE9.svg", "\(run)")
    }

    @Test("A name that is not UTF-8 is shown escaped in messages")
    func namesAreShownEscaped() throws {
        let missing = try Shell.run("\"$HB\" render \(Self.shellName("n", ".ahap"))")
        #expect(missing.status == 1)
        #expect(missing.err == "Error: no file and no built-in haptic named \"n\\xE9.ahap\" (see `hapbridge library` for the built-in names)\n", "\(missing)")
        let badOutput = try Shell.run("\"$HB\" render \(Hapbridge.path("Examples/SOS.ahap")) -o /no/such/\(Self.shellName("d", "/o.svg"))")
        #expect(badOutput.status == 1)
        #expect(badOutput.err == "Error: cannot write the output to /no/such/d\\xE9/o.svg: no such directory /no/such/d\\xE9\n", "\(badOutput)")
    }

    @Test("emulate writes its --log under the name given and passes COMMAND's arguments on as the bytes given, through its re-execution under umockdev")
    func emulatePassesBytesOn() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // COMMAND writes its own first argument's bytes to a file, for the test to read back.
        let run = try Shell.run(
            "\"$HB\" emulate bridge --log \(Self.shellName("l", ".jsonl")) -- sh -c 'printf %s \"$1\" > arg' sh \(Self.shellName("a", ""))",
            directory: directory.path)
        #expect(run.status == 0, "\(run)")
        let names = Set(FileReader.names(in: FilePath(directory.path)).map(\.bytes))
        #expect(names == [Self.bytes("l", ".jsonl"), Array("arg".utf8)], "no U+FFFD name")
        #expect(try FileReader.read(FilePath(directory.path + "/arg"), limit: 64) == Self.bytes("a", ""))
    }
}
