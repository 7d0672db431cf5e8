import Foundation
import Testing

/// Every number a bench file, a test script or `run`'s options give, set in turn to a
/// value that has broken converters: each run of the built executable must end by
/// exiting (no trap: a number turned into a duration or an integer out of its range
/// used to end in SIGILL, a bench's `lock-expiry-seconds: 1e19` without a word), either refused
/// before anything ran (exit 2, one line naming the file, the line and the key, or the
/// option, with the rule) or run to a verdict (0, 9, 11).
@Suite("hapbridge run: hostile numbers in bench files, scripts and options")
struct RunHostileNumbersTests {
    /// YAML scalars: huge, tiny, negative, not finite, not numbers, the edges of the ranges.
    static let values = [
        "1e19", "1e308", "-1e308", "99999999999999999999", "-1", "0", "1e-320", ".nan", ".inf", "-.inf", "2.5", "x", "604800", "604800.5",
        "3600000", "3600001", "1000", "1001", "10", "11",
    ]

    /// Where the value goes: which file, the text with `@` for it, and the key an error names.
    struct Site: Sendable, CustomTestStringConvertible {
        var inBench: Bool
        var text: String
        var key: String
        var testDescription: String { key }
    }

    static let bench = "bench: hostile\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100}\n"
    static let suite = "suite: s\ntests:\n  - name: t\n    steps:\n      - wait: 0\n"

    static let sites = [
        Site(inBench: true, text: "bench: hostile\ndevices:\n  - {name: dut, address: sim, actuator: pmd-c10-100, simulate: {supply: @}}\n", key: "devices[0].simulate.supply"),
        Site(inBench: true, text: bench + "fixture: {sled-mass-grams: @}\n", key: "fixture.sled-mass-grams"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    timeout: @\n    steps:\n      - wait: 0\n", key: "tests[0].timeout"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - wait: 0\n        timeout: @\n", key: "tests[0].steps[0].timeout"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - wait: @\n", key: "tests[0].steps[0].wait"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    retries: @\n    steps:\n      - wait: 0\n", key: "tests[0].retries"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    repeats: @\n    steps:\n      - wait: 0\n", key: "tests[0].repeats"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - calibrate: {runs: @}\n        timeout: 0.001\n", key: "tests[0].steps[0].calibrate.runs"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - sweep: {from: @}\n        timeout: 0.001\n", key: "tests[0].steps[0].sweep.from"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - sweep: {to: @}\n        timeout: 0.001\n", key: "tests[0].steps[0].sweep.to"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - sweep: {settle: @}\n        timeout: 0.001\n", key: "tests[0].steps[0].sweep.settle"),
        Site(inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - sweep: {level: @}\n        timeout: 0.001\n", key: "tests[0].steps[0].sweep.level"),
        Site(
            inBench: false, text: "suite: s\ntests:\n  - name: t\n    steps:\n      - measure: ios.impact.light\n        limits: [{figure: peak, unit: g, low: @}]\n",
            key: "tests[0].steps[0].limits[0].low"),
    ]

    @Test("A hostile number in a bench file or a script is refused at its file, line and key (exit 2) or runs to a verdict; never a trap", arguments: sites)
    func hostileNumbersInFiles(_ site: Site) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var problems: [String] = []
        for value in Self.values {
            let text = site.text.replacingOccurrences(of: "@", with: value)
            try (site.inBench ? text : Self.bench).write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
            try (site.inBench ? Self.suite : text).write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
            let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--lock-dir", dir])
            let file = site.inBench ? "bench.yaml" : "suite.yaml"
            if let signal = r.signal {
                problems.append("\(value): killed by signal \(signal): \(r.stderr)")
            } else if r.status == 2 {
                // One line: the file, its line, the key, the rule.
                let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("Error: ") } ?? ""
                let pattern = NSRegularExpression.escapedPattern(for: file) + #":\d+: "# + NSRegularExpression.escapedPattern(for: site.key) + ": "
                if line.range(of: pattern, options: .regularExpression) == nil { problems.append("\(value): \(r.stderr)") }
            } else if ![0, 9, 11].contains(r.status) {
                problems.append("\(value): exit \(r.status): \(r.stderr)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("A hostile --timeout, --vanish-wait or --wait is a usage error naming the option (exit 2) or runs; never a trap", arguments: ["--timeout", "--vanish-wait", "--wait"])
    func hostileOptions(_ option: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.suite.write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        var problems: [String] = []
        for value in ["1e19", "1e308", "99999999999999999999", "nan", "inf", "-inf", "-1", "0", "1e-320", "604800", "604801", "x", ""] {
            // --wait's value is optional: a word after it is not its value but a TEST, so it is given joined.
            let given = option == "--wait" ? ["\(option)=\(value)"] : [option, value]
            let r = try runProcess(Repo.hapbridge, ["run", Repo.path("Examples/hil/bench-sim.yaml"), "\(dir)/suite.yaml", "--lock-dir", dir] + given)
            if let signal = r.signal {
                problems.append("\(value): killed by signal \(signal)")
            } else if r.status == 2 {
                if !r.stderr.contains(option) { problems.append("\(value): \(r.stderr)") }
            } else if ![0, 9].contains(r.status) {
                problems.append("\(value): exit \(r.status): \(r.stderr)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
