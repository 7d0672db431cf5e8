import Foundation
import TestSupport
import Testing

/// Bench files and scripts built to crash or exhaust the loader, each run through the
/// built executable: every one must be refused before anything runs (exit 2, one line
/// `file:line: key: rule`), never end in a signal (5,000 levels of `[` overflowed the
/// stack: exit 139; `-` trapped: 132), and stay within a memory bound measured from the
/// child's own rusage (a 223 kB file of aliases to a 100 kB string once held 2.2 GB and
/// wrote 800 MB of JSON). Wall time is not asserted: a hang guard only ends a child
/// that never would.
@Suite("hapbridge run: hostile bench files and scripts are refused at load, in bounded memory")
struct RunHostileInputTests {
    /// What a refused load may hold at most, KiB: a refusal holds the file and a tree of
    /// it (a plain run on sim peaks near 30 MB).
    static let memoryBoundKilobytes = 150 * 1024

    struct Case: Sendable, CustomTestStringConvertible {
        /// The input class, as the hostile-input table in Examples/hil/README.md names it.
        var name: String
        var inBench: Bool
        var text: String
        /// The line the error names (nil: the file as a whole, unless `anyLine`).
        var line: Int?
        var anyLine = false
        /// The key path the error names ("" for none), or its start when `keyPrefix`.
        var key: String
        var keyPrefix = false
        /// A fragment of the rule.
        var rule: String
        var testDescription: String { name }
    }

    static let bench = "bench: hostile\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100}\n"
    static let suite = "suite: s\ntests:\n  - name: t\n    steps:\n      - wait: 0\n"

    static let cases: [Case] = [
        Case(
            name: "5,000 levels of [ in a suite (10 kB)", inBench: false, text: "suite: s\ntests: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n",
            line: 2, key: "tests[0]", keyPrefix: true, rule: "nested deeper than 32 levels"),
        Case(
            name: "5,000 levels of [ in a bench (10 kB)", inBench: true, text: "bench: b\ndevices: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n",
            line: 2, key: "devices[0]", keyPrefix: true, rule: "nested deeper than 32 levels"),
        Case(
            name: "5,000 levels of block lists (- - - …)", inBench: false, text: "suite: s\ntests:\n" + String(repeating: "- ", count: 5000) + "x\n", line: 3,
            key: "tests[0]", keyPrefix: true, rule: "nested deeper than 32 levels"),
        Case(
            name: "5,000 levels of flow mappings", inBench: true, text: "bench: b\nfixture: " + String(repeating: "{a: ", count: 5000) + "1" + String(repeating: "}", count: 5000) + "\n",
            line: 2, key: "fixture.a", keyPrefix: true, rule: "nested deeper than 32 levels"),
        Case(name: "an alias bomb (ten anchors, each ten aliases of the last)", inBench: false, text: aliasBomb, line: nil, anyLine: true, key: "tests[", keyPrefix: true, rule: "past 4 MiB"),
        Case(name: "aliases of a 100 kB string (223 kB file)", inBench: false, text: longStringAliases, line: nil, anyLine: true, key: "tests[", keyPrefix: true, rule: "the alias *b takes the document past 4 MiB"),
        Case(name: "aliases nesting deeper than they are written", inBench: false, text: aliasDepth, line: 33, key: "d31[0]", rule: "the alias *d30 puts 31 levels of lists and mappings at depth 3: nested deeper than 32 levels"),
        Case(name: "a second document", inBench: false, text: suite + "---\nsuite: t\n", line: 6, key: "", rule: "a file holds one YAML document"),
        Case(name: "a tag", inBench: false, text: "suite: !!binary c2VjcmV0\ntests: []\n", line: 1, key: "suite", rule: "a tag (tag:yaml.org,2002:binary) is not part of this format"),
        Case(name: "an alias to no anchor", inBench: false, text: "suite: *nowhere\n", line: 1, key: "suite", rule: "names no anchor"),
        Case(name: "a merge key", inBench: false, text: "suite: s\ntests:\n  - &t {name: a, steps: [{wait: 0}]}\n  - <<: *t\n    name: b\n", line: 4, key: "tests[1].<<", rule: "merge keys (<<) are not part of this format"),
        Case(name: "a NUL by escape", inBench: false, text: "suite: \"a\\0b\"\ntests: []\n", line: 1, key: "suite", rule: "a NUL character"),
        Case(name: "a raw control character", inBench: false, text: "suite: a\u{1B}b\ntests: []\n", line: 1, key: "", rule: "control characters are not allowed"),
        Case(name: "YAML that does not parse", inBench: true, text: "bench: b\ndevices: [\n", line: 3, key: "devices", keyPrefix: true, rule: "not valid YAML"),
        Case(name: "a key given twice", inBench: true, text: bench + "bench: again\n", line: 4, key: "bench", rule: "given twice"),
        Case(name: "a 1,000-character unknown key (its echo cut short)", inBench: true, text: bench + String(repeating: "k", count: 1000) + ": 1\n", line: 4, key: String(repeating: "k", count: 40) + "…", rule: "unknown key"),
        Case(name: "a 100 kB key (past libyaml's 1,024 for a simple key)", inBench: true, text: bench + String(repeating: "k", count: 100_000) + ": 1\n", line: 4, key: "", rule: "not valid YAML: could not find expected ':'"),
        Case(name: "a retired key (lock-expiry-seconds)", inBench: true, text: bench + "lock-expiry-seconds: 60\n", line: 4, key: "lock-expiry-seconds", rule: "no longer used"),
        Case(name: "an empty file", inBench: false, text: "# nothing\n", line: nil, key: "", rule: "the file is empty"),
        Case(name: "a file over 1 MiB", inBench: false, text: suite + "# " + String(repeating: "x", count: 1 << 20) + "\n", line: nil, key: "", rule: "larger than the limit"),
    ]

    /// Ten anchors, each a list of ten aliases of the one before: 10^10 leaves written out.
    static let aliasBomb: String = {
        var s = "suite: s\ntests:\n  - name: t0\n    requires: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n    steps: [{wait: 0}]\n"
        for i in 1..<10 {
            s += "  - name: t\(i)\n    requires: &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n    steps: [{wait: 0}]\n"
        }
        return s
    }()

    /// The report's case: a long string named 6,000 times in 2,000 tests.
    static let longStringAliases: String = {
        var s = "suite: &b \"" + String(repeating: "x", count: 100_000) + "\"\ntests:\n"
        for i in 0..<2000 { s += "  - {name: t\(i), requires: [*b, *b, *b], steps: [{wait: 0}]}\n" }
        return s
    }()

    /// Each anchor one list deeper than the last, each written at depth 2.
    static let aliasDepth: String = {
        var s = "suite: s\nd0: &d0 x\n"
        for i in 1...40 { s += "d\(i): &d\(i) [*d\(i - 1)]\n" }
        return s + "tests: []\n"
    }()

    func run(_ c: Case, in dir: String) throws -> MeasuredProcess {
        try (c.inBench ? c.text : Self.bench).write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try (c.inBench ? Self.suite : c.text).write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        return try MeasuredProcess.run(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--lock-dir", dir])
    }

    @Test("A hostile bench file or script is refused at its file, line and key (exit 2) in bounded memory; never a signal", arguments: cases)
    func refused(_ c: Case) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try run(c, in: dir)
        #expect(r.signal == nil && !r.hung, "killed by signal \(r.signal ?? 0): \(r.errors.prefix(2000))")
        #expect(r.status == 2, "exit \(r.status.map(String.init) ?? "-"): \(r.errors.prefix(2000))")
        let file = "\(dir)/\(c.inBench ? "bench" : "suite").yaml"
        let lines = r.errors.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(r.errors.prefix(2000))")
        let said = String(lines.first ?? "")
        var head = "Error: \(file)" + (c.line.map { ":\($0)" } ?? "") + ": "
        if c.anyLine, let match = said.range(of: #"^Error: [^ ]+:\d+: "#, options: .regularExpression) { head = String(said[match]) }
        #expect(said.hasPrefix(head) && head.hasPrefix("Error: \(file)"), "\(said.prefix(2000))")
        if said.hasPrefix(head) {
            let rest = said.dropFirst(head.count)
            if !c.key.isEmpty { #expect(rest.hasPrefix(c.key + (c.keyPrefix ? "" : ": ")), "key: \(rest.prefix(300))") }
            #expect(rest.contains(c.rule), "rule: \(rest.prefix(500))")
        }
        #expect(said.utf8.count < 2000, "the message is bounded: \(said.utf8.count) bytes")
        #expect(r.maxResidentKilobytes < Self.memoryBoundKilobytes, "held \(r.maxResidentKilobytes) KiB")
    }

    @Test("The memory bound is the child's own peak: a child started while the test runner holds 256 MB more reports its own few megabytes")
    func boundIsTheChildsOwn() throws {
        let size = 256 << 20
        let held = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { held.deallocate() }
        memset(held, 1, size)
        let r = try MeasuredProcess.run("/bin/true", [])
        #expect(r.status == 0 && r.maxResidentKilobytes < 64 * 1024, "held \(r.maxResidentKilobytes) KiB")
    }

    @Test("A script that is not UTF-8 is refused naming the line of the first bad byte")
    func notUTF8() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.bench.write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try Data(Array("suite: s\ntests:\n  - name: \u{E9}t\u{E9}\n".utf8) + [0xFF, 0x0A]).write(to: URL(fileURLWithPath: "\(dir)/suite.yaml"))
        let r = try MeasuredProcess.run(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--lock-dir", dir])
        #expect(r.status == 2 && r.errors.hasPrefix("Error: \(dir)/suite.yaml:4: not UTF-8 text (byte 0xFF"), "\(r.errors)")
    }

    @Test("A script on standard input (-) runs, its errors name (standard input), and its relative paths start in the working directory")
    func standardInput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.bench.write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try Self.suite.write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        let ok = try MeasuredProcess.run(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "-", "--lock-dir", dir], input: "\(dir)/suite.yaml")
        #expect(ok.signal == nil && ok.status == 0, "\(ok.errors)")
        let benchIn = try MeasuredProcess.run(Repo.hapbridge, ["run", "-", "\(dir)/suite.yaml", "--lock-dir", dir], input: "\(dir)/bench.yaml")
        #expect(benchIn.signal == nil && benchIn.status == 0, "\(benchIn.errors)")
        try "suite: s\ntests:\n  - name: t\n    steps:\n      - play: no-such.ahap\n".write(toFile: "\(dir)/bad.yaml", atomically: true, encoding: .utf8)
        let bad = try MeasuredProcess.run(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "-", "--lock-dir", dir], input: "\(dir)/bad.yaml")
        #expect(bad.status == 2 && bad.errors.hasPrefix("Error: (standard input):5: tests[0].steps[0].play: no pattern file ./no-such.ahap"), "\(bad.errors)")
        let twice = try MeasuredProcess.run(Repo.hapbridge, ["run", "-", "-", "--lock-dir", dir], input: "\(dir)/suite.yaml")
        #expect(twice.status == 2 && twice.errors.contains("standard input (-) can be read once"), "\(twice.errors)")
    }
}
