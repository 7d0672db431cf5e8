import Foundation
import FoundationXML
import Testing
import TestSupport

@testable import HapbridgeCLI

/// Generated and mutated documents, profiles and option values through the real
/// executable. Every run must end by exiting (never a signal: no trap, and no breach
/// of the CPU-time and address-space bounds the shell sets) with a status the README
/// documents; a success must have written well-formed SVG or JSON; standard error
/// must carry no raw control bytes and stay a few lines long.
@Suite struct CLIFuzzTests {
    /// The same runs every time, and a failure names its seed.
    typealias Generator = SeededGenerator

    /// Numbers that have broken parsers, converters and renderers.
    static let hostileNumbers = [
        "0", "-0", "1", "-1", "0.5", "2", "1e-16", "1e-320", "1e308", "-1e308", "1e309", "99999999999999999999", "0.30000000000000004", "30", "30.000001", "3599.9", "3601",
    ]
    /// Command-line values for numeric options: out of range, not numbers, not finite.
    static let hostileOptionValues = [
        "0", "-1", "1e-16", "1e308", "-1e308", "nan", "NaN", "inf", "-inf", "0x10", "", " 1", "1e6", "1000001", "18446744073709551616", "17000", "17001", "100.5", "0.01",
        "\u{1B}[31m",
    ]
    /// Text that must never reach a terminal raw or break an SVG: JSON escapes of
    /// controls, noncharacters and bidi overrides, markup, length, and once in a
    /// while a raw ESC (which JSON forbids in a string).
    static let hostileText = [
        #"\u001b[2J\u001b]0;pwned\u0007"#, #"\u0000"#, #"\ufffe\uffff"#, #"\u0085\u009b31m"#, #"\u202eevil"#, #"<svg>&amp;"#, "plain",
        String(repeating: "long", count: 300), #"\u001b[31m"#, #"tab\there\r\n"#,
    ]

    /// A pattern whose structure is mostly right and whose values are sometimes not,
    /// so most documents load and go on to be rendered or played with hostile text
    /// in their metadata, keys and names.
    static func generatedAHAP(_ g: inout Generator, short: Bool) -> String {
        func either(_ valid: [String], _ hostile: [String]) -> String { g.chance(95) ? g.pick(valid) : g.pick(hostile) }
        var entries: [String] = []
        for _ in 0..<(1 + g.below(4)) {
            let time = either(short ? ["0", "0.01", "0.05", "0.1"] : ["0", "0.5", "2", "29.5"], short ? ["-1", "1e-320", "0.2"] : hostileNumbers)
            let duration = either(short ? ["0.02", "0.1"] : ["0.5", "1", "30"], hostileNumbers)
            let type = either(["HapticTransient", "HapticContinuous", "HapticContinuous", "AudioCustom"], ["AudioContinuous", "Bogus", "\\u001b[31m"])
            let parameter = either(["HapticIntensity", "HapticSharpness", "AttackTime", "DecayTime", "ReleaseTime", "Sustained"], ["AudioVolume", "\\u0000", "Bogus"])
            let value = either(["0", "0.25", "0.5", "1"], hostileNumbers + ["true", "null", "\"1\"", "[]", "{}"])
            var extra = type == "AudioCustom" ? #", "EventWaveformPath": "\#(g.pick(hostileText))""# : ""
            if g.chance(30) { extra += #", "\#(g.pick(hostileText))": \#(g.pick(hostileNumbers))"# }  // ignored, with a warning
            entries.append(
                #"{"Event": {"Time": \#(time), "EventType": "\#(type)", "EventDuration": \#(duration)\#(extra), "EventParameters": [{"ParameterID": "\#(parameter)", "ParameterValue": \#(value)}]}}"#)
            if g.chance(2) { entries.append("\u{1B}[31m") }  // a raw ESC: not JSON
            if g.chance(30) {
                let end = either(short ? ["0.05"] : ["1", "5"], hostileNumbers)
                entries.append(
                    #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": \#(time), "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": \#(either(["0.2", "1"], hostileNumbers))}, {"Time": \#(end), "ParameterValue": 1}]}}"#)
            }
            if g.chance(5) { entries.append(#"{"\#(g.pick(hostileText))": \#(g.pick(hostileNumbers))}"#) }
        }
        let metadata = #"{"Description": "\#(g.pick(hostileText))", "\#(g.pick(hostileText))": "\#(g.pick(hostileText))"}"#
        return #"{"Version": \#(either(["1"], ["2", "1.0", "\"1\"", "-1"])), "Metadata": \#(metadata), "Pattern": ["# + entries.joined(separator: ", ") + "]}"
    }

    /// Byte-level damage: flips, deletions, insertions of controls and broken UTF-8,
    /// duplicated runs, truncation.
    static func mutated(_ bytes: [UInt8], _ g: inout Generator) -> [UInt8] {
        var out = bytes
        for _ in 0..<(1 + g.below(4)) where !out.isEmpty {
            let i = g.below(out.count)
            switch g.below(6) {
            case 0: out[i] ^= UInt8(truncatingIfNeeded: 1 << g.below(8))
            case 1: out.remove(at: i)
            case 2: out.insert(contentsOf: g.pick([[0x1B, 0x5B, 0x32, 0x4A], [0x00], [0xC2, 0x9B], [0xFF, 0xFE], [0xEF, 0xBF, 0xBE], [0x0D], [0x2C]]), at: i)
            case 3:
                let end = min(out.count, i + 1 + g.below(64))
                out.insert(contentsOf: out[i..<end], at: i)
            case 4: out.removeSubrange(i...)
            default: out.insert(contentsOf: Array(g.pick(hostileNumbers).utf8), at: i)
            }
        }
        return out
    }

    /// A shipped profile with one field set to a hostile value, or damaged bytes.
    static func profile(_ g: inout Generator, base: String) -> [UInt8] {
        guard g.chance(70) else { return mutated(Array(base.utf8), &g) }
        let field = g.pick(["ratedVoltage", "maxVoltage", "coilResistanceOhms", "ratedAccelerationG", "resonantFrequencyHz", "qualityFactor", "brakeFactor", "autoCalibrationMilliseconds", "type", "loop"])
        let value = g.chance(70) ? g.pick(hostileNumbers) : g.pick(["true", "null", "\"\\u001b[31m\"", "\"ERM\"", "[]"])
        guard let range = base.range(of: "\"\(field)\": ") else { return Array(base.utf8) }
        let rest = base[range.upperBound...]
        let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
        return Array((base[..<range.upperBound] + value + base[end...]).utf8)
    }

    enum Expected { case svg, json, csv, ahap, report }

    struct Case {
        var arguments: [String]
        var stdin: [UInt8]? = nil
        var stdout: Hapbridge.Stdout = .captured
        /// The file the command writes, if not standard output.
        var output: String? = nil
        var expected: Expected
        var allowed: Set<Int32> = [0, 1, 2]
    }

    static func cases(count: Int, seed: UInt64, in directory: URL) throws -> [Case] {
        var g = Generator(seed: seed)
        let examples = try ["SOS.ahap", "Fade.ahap", "Beethoven5.ahap"].map { Array(try Data(contentsOf: Hapbridge.repository.appendingPathComponent("Examples/\($0)"))) }
        let profileText = try String(contentsOf: Hapbridge.repository.appendingPathComponent("Hardware/actuators/pmd-c10-100.json"), encoding: .utf8)
        let file = directory.appendingPathComponent("plain-file").path
        try Data().write(to: URL(fileURLWithPath: file))
        let oddPaths = [
            directory.path, directory.appendingPathComponent("missing/out.svg").path, file + "/out.svg", "/dev/full", "/dev/null",
            directory.appendingPathComponent("esc\u{1B}[31m\nname.svg").path, directory.appendingPathComponent(String(repeating: "n", count: 300) + ".svg").path,
        ]
        var cases: [Case] = []
        for index in 0..<count {
            let name = "case\(index)"
            let short = g.chance(60)
            var document: [UInt8] = g.chance(75) ? Array(generatedAHAP(&g, short: true).utf8) : mutated(g.pick(examples), &g)
            if !short { document = g.chance(75) ? Array(generatedAHAP(&g, short: false).utf8) : mutated(document, &g) }
            let pattern = directory.appendingPathComponent(name + (g.chance(95) ? ".ahap" : g.pick([".haptic", ".json", ""]))).path
            try Data(document).write(to: URL(fileURLWithPath: pattern))
            let output = directory.appendingPathComponent(name + ".out").path
            switch g.below(10) {
            case 0...3:  // render, to a file or standard output, sometimes with a hostile option
                let format = g.pick(["svg", "json", "csv"])
                var arguments = ["render", pattern, "-f", format, "--rate", short ? g.pick(["1000", "100", "1"]) : "10"]
                var target: String? = output
                if g.chance(50) { target = nil } else { arguments += ["-o", output] }
                if g.chance(30) { arguments += [g.pick(["--rate", "--playback-rate"]), g.pick(hostileOptionValues)] }
                let expected: Expected = format == "svg" ? .svg : format == "json" ? .json : .csv
                let fromStdin = g.chance(15)
                if fromStdin { arguments[1] = "-" }
                cases.append(Case(arguments: arguments, stdin: fromStdin ? document : nil, output: target, expected: expected))
            case 4:  // render to an odd place, or with its output failing
                let odd = g.pick(oddPaths)
                let stdout: Hapbridge.Stdout = g.pick([.captured, .devFull, .closed, .brokenPipe])
                let toStdout = g.chance(50)
                cases.append(Case(arguments: ["render", g.pick([pattern, "impact.heavy"])] + (toStdout ? [] : ["-o", odd]), stdout: toStdout ? stdout : .captured, output: nil, expected: .report))
            case 5, 6:  // play a short document (long ones take their length in virtual time), hostile options, plots
                var arguments = ["play", short ? pattern : "impact.heavy"]
                if g.chance(30) { arguments += [g.pick(["--playback-rate", "--link-latency"]), g.pick(hostileOptionValues)] }
                let plot = g.chance(30)
                if plot { arguments += ["--plot", directory.appendingPathComponent(name + ".svg").path] }
                cases.append(Case(arguments: arguments, output: plot ? directory.appendingPathComponent(name + ".svg").path : nil, expected: plot ? .svg : .report, allowed: [0, 1, 2, 3]))
            case 7:  // a damaged profile through the hardware commands and play
                let path = directory.appendingPathComponent(name + ".json").path
                try Data(profile(&g, base: profileText)).write(to: URL(fileURLWithPath: path))
                let command = g.pick([["diagnose", "--actuator", path], ["play", "impact.heavy", "--actuator", path], ["rom", "1", "--actuator", path, "--no-calibrate"]])
                cases.append(Case(arguments: command + (g.chance(20) ? ["--plot", g.pick(oddPaths)] : []), expected: .report, allowed: [0, 1, 2, 3]))
            case 8:  // hardware commands with hostile options and odd plot paths
                var arguments = g.pick([["diagnose"], ["rom", g.pick(["1", "123", "0", "124", "strong click 100%", "\u{1B}[31m"])], ["calibrate", "--actuator", "pmd-c10-100"]])
                arguments += [g.pick(["--supply", "--simulate-fault", "--variant", "--library"]), g.pick(hostileOptionValues + ["open", "short", "absent", "over-current", "drv2605"])]
                if g.chance(40) { arguments += ["--plot", g.pick(oddPaths)] }
                cases.append(Case(arguments: arguments, stdout: g.chance(20) ? .devFull : .captured, expected: .report))
            default:  // library export, to a file, standard output or an odd place
                let target = g.pick([output, "-", g.pick(oddPaths)])
                cases.append(Case(arguments: ["library", "export", g.pick(["impact.heavy", "watchos.retry", "nope", "\u{1B}[2J"]), "--output", target],
                                  output: target == "-" ? nil : target, expected: oddPaths.contains(target) ? .report : .ahap))
            }
        }
        return cases
    }

    /// What is wrong with one run, if anything.
    static func problems(_ c: Case, _ run: HapbridgeRun) -> [String] {
        var found: [String] = []
        if let signal = run.signal { return ["ended by signal \(signal)"] }
        if !c.allowed.contains(run.status) { found.append("exit status \(run.status)") }
        if !run.controlBytesOnStderr.isEmpty { found.append("raw control bytes on stderr: \(run.controlBytesOnStderr)") }
        if run.errLines.count > PatternSource.shownWarnings + 12 { found.append("\(run.errLines.count) lines on stderr") }
        guard run.status == 0, c.stdout == .captured else { return found }
        let written: [UInt8]
        if let output = c.output {
            var info = stat()
            guard lstat(output, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return found }
            written = Array((try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data())
        } else {
            written = run.stdout
        }
        switch c.expected {
        case .svg:
            let parser = XMLParser(data: Data(written))
            if !parser.parse() { found.append("SVG not well-formed: \(String(describing: parser.parserError))") }
        case .json, .ahap:
            if (try? JSONSerialization.jsonObject(with: Data(written))) == nil { found.append("not valid JSON") }
        case .csv:
            if !String(decoding: written, as: UTF8.self).hasPrefix("kind,time_ms,intensity,sharpness\n") { found.append("CSV without its header") }
        case .report: break
        }
        return found
    }

    @Test("Hostile documents, profiles and options through the built executable: documented statuses, well-formed output, clean stderr")
    func fuzz() throws {
        let seed: UInt64 = 0x4841_5042_5249_4447  // "HAPBRIDG"
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases = try Self.cases(count: 300, seed: seed, in: directory)
        let failures = RunLog()
        let statuses = RunLog()
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            let c = cases[index]
            do {
                let run = try Hapbridge.run(c.arguments, stdin: c.stdin, stdout: c.stdout, directory: directory.path)
                statuses.add("\(c.arguments[0]) \(run.signal.map { "signal \($0)" } ?? "status \(run.status)")")
                let problems = Self.problems(c, run)
                if !problems.isEmpty { failures.add("case \(index) \(c.arguments.map { TerminalText.echo($0, limit: 60) }): \(problems.joined(separator: "; ")); stderr: \(TerminalText.echo(run.err, limit: 300))") }
            } catch {
                failures.add("case \(index): could not run: \(error)")
            }
        }
        let found = failures.entries
        #expect(found.isEmpty, "seed \(seed): \(found.count) of \(cases.count) runs failed:\n\(found.prefix(20).joined(separator: "\n"))")
        // The runs reach every command, and render and play reach success, failure and
        // usage errors alike (a generator whose documents never load tests little).
        #expect(Set(cases.map { $0.arguments[0] }) == ["render", "play", "diagnose", "rom", "calibrate", "library"])
        let seen = Set(statuses.entries)
        for command in ["render", "play"] {
            for status in 0...2 { #expect(seen.contains("\(command) status \(status)"), "no \(command) run ended with status \(status)") }
        }
    }
}

/// Lines from concurrent runs, collected under a lock and checked by the test.
final class RunLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var entries: [String] { lock.withLock { items } }
}
