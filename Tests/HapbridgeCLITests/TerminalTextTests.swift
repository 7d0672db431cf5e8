import Foundation
import FoundationXML
import Testing

@testable import HapbridgeCLI

/// Text from input is shown safely: no control sequence from a file name, key or
/// value reaches the terminal, echoed input is capped, warnings are counted past the
/// first few, and the SVG stays well-formed XML.
@Suite struct TerminalTextTests {
    @Test("C0 and C1 controls, DEL, ESC and the bidi and line-separator controls become visible escapes")
    func controlsAreEscaped() {
        #expect(TerminalText.safe("\u{1B}]0;title\u{7}") == "\\x1B]0;title\\x07")
        #expect(TerminalText.safe("a\0b\u{7F}c\u{9B}31m") == "a\\x00b\\x7Fc\\x9B31m")
        #expect(TerminalText.safe("line\nfeed\rreturn\ttab") == "line\\x0Afeed\\x0Dreturn\\x09tab")
        #expect(TerminalText.safe("abc\u{202E}fed\u{2028}") == "abc\\u{202E}fed\\u{2028}")
        #expect(TerminalText.safe("µs − ±500 … Beethoven 5.ahap ✓") == "µs − ±500 … Beethoven 5.ahap ✓")
    }

    @Test("Echoed input is capped with its total length said")
    func echoIsCapped() {
        let long = String(repeating: "k", count: 1_000_000)
        let echoed = TerminalText.echo(long)
        #expect(echoed == String(repeating: "k", count: 80) + "… (1000000 characters)")
        #expect(TerminalText.echo("short") == "short")
    }

    @Test("An ESC sequence in a file name reaches standard error escaped")
    func fileNamesAreEscaped() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Relative names, so the echo cap does not cut the part that matters.
        let name = "evil\u{1B}[2J\u{1B}]0;pwned\u{7}.ahap"
        try Data(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","Bogus\u001b[31m":1}}]}"#.utf8)
            .write(to: directory.appendingPathComponent(name))
        for arguments in [["render", name, "-o", "/dev/null"], ["render", name + ".missing"], ["render", name, "-o", name + "/x"]] {
            let run = try Hapbridge.run(arguments, directory: directory.path)
            #expect(run.signal == nil)
            #expect(run.controlBytesOnStderr.isEmpty, "\(arguments): \(run.err)")
            #expect(run.err.contains("evil\\x1B[2J\\x1B]0;pwned\\x07"), "\(arguments): \(run.err)")
        }
    }

    @Test("At most 20 warnings are shown, then how many more there are")
    func warningsAreCounted() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("keys.ahap")
        let keys = (0..<1000).map { "\"Unknown\($0)\": 1" }.joined(separator: ", ")
        try Data("{\"Version\": 1, \(keys), \"Pattern\": []}".utf8).write(to: file)
        let run = try Hapbridge.run(["render", file.path, "-o", "/dev/null"])
        #expect(run.status == 0)
        let warnings = run.errLines.filter { $0.hasPrefix("keys.ahap: warning:") }
        #expect(warnings.count == PatternSource.shownWarnings)
        #expect(run.errLines.contains("keys.ahap: … and 980 more warnings (`hapbridge render --format json` lists them all)"))
        let json = try Hapbridge.run(["render", file.path, "-f", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect((object["warnings"] as? [String])?.count == 1000)
    }

    @Test("Control characters, U+0000 and U+FFFE/U+FFFF in metadata and the file name leave the SVG well-formed")
    func svgStaysWellFormed() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = directory.appendingPathComponent("bad\u{1}\u{1B}name.ahap")
        let description = "\\u0000\\u0007\\u001b\\u007f\\u0085\\u009b\\ufffe\\uffff<&>\\\"'"
        try Data("{\"Version\": 1, \"Metadata\": {\"Description\": \"\(description)\"}, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]}".utf8)
            .write(to: name)
        let run = try Hapbridge.run(["render", name.path])
        #expect(run.status == 0, "\(run.err)")
        let parser = XMLParser(data: Data(run.stdout))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(run.out.contains("&lt;&amp;&gt;&quot;&#39;"))
    }
}
