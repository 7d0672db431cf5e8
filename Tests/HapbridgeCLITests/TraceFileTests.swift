import Foundation
import Testing

@testable import HapbridgeCLI

/// `hapbridge diff` on trace files written here: the figures' definitions pinned on
/// synthetic vibrations whose answer is known, and hostile files refused with the file,
/// the field and the rule, never a trap.
@Suite struct TraceFileTests {
    /// A 175 Hz vibration sampled every 100 µs: silent until `onsetMs` after the start,
    /// then rising as 1 − e^(−t/5 ms) to `peakG`, held to 150 ms, then decaying.
    static func vibration(peakG: Double = 0.5, onsetMs: Double = 3, start: Int = 10_000) -> String {
        var ts: [String] = [], gs: [String] = []
        for i in -20..<2500 {
            let t = Double(i) * 100  // µs from start
            let since = (t / 1000) - onsetMs
            var level = 0.0
            if since >= 0 { level = since < 150 ? 1 - exp(-since / 5) : (1 - exp(-150 / 5.0)) * exp(-(since - 150) / 10) }
            let g = peakG * level * sin(2 * Double.pi * 175 * since / 1000)
            ts.append(String(Int(t)))
            gs.append(String(format: "%.9f", since >= 0 ? g : 0))
        }
        return trace(start: start, t: ts.joined(separator: ","), g: gs.joined(separator: ","))
    }

    static func trace(start: Int = 10_000, t: String, g: String, extra: String = "") -> String {
        #"{"schema": "hapbridge-trace/1", "pattern": "synthetic", "actuator": "none", "device": "sim", "serialNumber": null, "recorded": "2026-11-29T07:00:00Z", "source": "model", "sourceDevice": "synthetic", "axis": null, "sampleRateHz": null, "lostSamples": 0, "startMicroseconds": "#
            + "\(start), \"drive\": [[0, 127], [150000, 0]], \"samples\": {\"t\": [\(t)], \"g\": [\(g)]}\(extra)}"
    }

    static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func figures(_ run: HapbridgeRun) throws -> [String: Double] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        let figures = try #require(object["figures"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: figures.compactMap { f in (f["name"] as? String).flatMap { n in (f["value"] as? Double).map { (n, $0) } } })
    }

    @Test("Half the amplitude throughout is a peak delta and an envelope error of −6.02 / 6.02 dB; the same shape 2 ms later is an onset delta of 2 ms and no envelope error")
    func figuresFollowTheirDefinitions() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try Self.write(Self.vibration(), "reference.json", in: directory)
        let half = try Self.write(Self.vibration(peakG: 0.25), "half.json", in: directory)
        let late = try Self.write(Self.vibration(onsetMs: 5), "late.json", in: directory)
        let halfRun = try Hapbridge.run(["diff", reference, half, "--json"])
        #expect(halfRun.status == 12, "\(halfRun.err)")
        let h = try Self.figures(halfRun)
        #expect(abs((h["peak delta"] ?? 0) + 6.0206) < 0.01 && abs((h["peak delta %"] ?? 0) + 50) < 0.1, "\(h)")
        #expect(abs((h["envelope error"] ?? 0) - 6.0206) < 0.05 && abs(h["onset delta"] ?? 1) < 0.01, "\(h)")
        let lateRun = try Hapbridge.run(["diff", reference, late, "--json"])
        #expect(lateRun.status == 12, "\(lateRun.err)")
        let l = try Self.figures(lateRun)
        #expect(abs((l["onset delta"] ?? 0) - 2) < 0.01 && (l["envelope error"] ?? 1) < 0.05 && abs(l["peak delta"] ?? 1) < 0.01, "\(l)")
        // Within looser limits, both pass: exit 0.
        let loose = try Hapbridge.run(["diff", reference, late, "--limits", "onset=2.5"])
        #expect(loose.status == 0 && loose.out.contains("verdict: PASS"), "\(loose.out) \(loose.err)")
    }

    @Test("A trace with no vibration FAILs against a reference (onset not measured, peak floored at −40 dB) rather than erroring; a reference with none cannot serve (exit 1)")
    func aSilentTraceFailsAndASilentReferenceIsAnError() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try Self.write(Self.vibration(), "reference.json", in: directory)
        let silent = try Self.write(Self.trace(t: "0,100,200,300", g: "0,0,0,0"), "silent.json", in: directory)
        let run = try Hapbridge.run(["diff", reference, silent])
        #expect(run.status == 12, "\(run.err)")
        #expect(run.out.contains("onset delta: not measured, the trace does not vibrate") && run.out.contains("peak delta: -40.00 dB"), "\(run.out)")
        let backwards = try Hapbridge.run(["diff", silent, reference])
        #expect(backwards.status == 1 && backwards.errLines.count == 1, "\(backwards.err)")
        #expect(backwards.err.contains("cannot compare") && backwards.err.contains("the reference's onset: no acceleration"), "\(backwards.err)")
    }

    @Test(
        "A hostile trace file is one line naming the file, the field and the rule (exit 1): never a trap",
        arguments: [
            ("{", "not JSON"),
            (#"{"schema": "hapbridge-trace/2"}"#, "schema: must be \"hapbridge-trace/1\""),
            (TraceFileTests.trace(t: "0,100", g: "0,1e999"), "samples.g[1]: must be within -1000…1000, not a number past a double's range (1.8e308)"),
            (TraceFileTests.trace(t: "0,100", g: "0,-1001"), "samples.g[1]: must be within"),
            (TraceFileTests.trace(t: "100,100", g: "0,0"), "samples.t[1]: must be later than the sample before it"),
            (TraceFileTests.trace(t: "0,100.5", g: "0,0"), "samples.t[1]: must be a whole number"),
            (TraceFileTests.trace(t: "0,100,200", g: "0,0"), "samples: t holds 3 times and g 2 values"),
            (TraceFileTests.trace(t: "0", g: "\"a\""), "samples.g[0]: must be a number, not a string"),
            (TraceFileTests.trace(t: "-20000", g: "0"), "samples.t[0]: must be within -10000…"),
            (TraceFileTests.trace(t: "0", g: "0", extra: #", "bogus": 1"#), "bogus: unknown key"),
            (TraceFileTests.trace(t: "", g: ""), "samples.t: must hold at least one sample"),
            (TraceFileTests.trace(t: "0,9007199254000000", g: "0.1,-0.1"), "envelope error: the recordings span"),
        ])
    func hostileFilesAreRefusedClearly(text: String, expected: String) throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try Self.write(Self.vibration(), "reference.json", in: directory)
        let hostile = try Self.write(text, "hostile.json", in: directory)
        let run = try Hapbridge.run(["diff", reference, hostile])
        #expect(run.signal == nil && run.status == 1 && run.errLines.count == 1, "\(run.status) \(run.err)")
        #expect(run.err.contains(expected), "\(run.err)")
        if !expected.hasPrefix("envelope") { #expect(run.err.contains("hostile.json"), "\(run.err)") }
    }

    @Test("measure --save-trace refuses standard output (the report's) and the --plot's destination as usage errors (exit 2)")
    func saveTraceNeedsItsOwnFile() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let same = directory.appendingPathComponent("x.svg").path
        for (arguments, expected) in [
            (["--save-trace", "-"], "--save-trace needs a file"), (["--save-trace", "/dev/stdout"], "--save-trace needs a file"),
            (["--save-trace", same, "--plot", same], "name one destination"),
        ] {
            let run = try Hapbridge.run(["measure", "impact.heavy", "--device", "sim"] + arguments)
            #expect(run.status == 2 && run.err.contains(expected), "\(arguments): \(run.err)")
        }
    }

    @Test("diff refuses a malformed --limits and two standard inputs as usage errors (exit 2), and a missing file or a directory as a failure (exit 1)")
    func commandLineErrors() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try Self.write(Self.vibration(), "reference.json", in: directory)
        for (limits, expected) in [
            ("onset=abc", "onset's value must be a number"), ("sharpness=1", "unknown limit"), ("onset=1,onset=2", "given twice"), ("onset", "is not NAME=VALUE"),
            ("peak=-1", "from 0 to"), ("envelope=nan", "must be a number"),
        ] {
            let run = try Hapbridge.run(["diff", reference, reference, "--limits", limits])
            #expect(run.status == 2 && run.err.contains(expected), "\(limits): \(run.err)")
        }
        let stdin = try Hapbridge.run(["diff", "-", "-"])
        #expect(stdin.status == 2 && stdin.err.contains("only one of"), "\(stdin.err)")
        for path in [directory.appendingPathComponent("missing.json").path, directory.path] {
            let run = try Hapbridge.run(["diff", reference, path])
            #expect(run.status == 1 && run.errLines.count == 1, "\(path): \(run.err)")
        }
        // The reference from standard input.
        let piped = try Hapbridge.run(["diff", "-", reference], stdin: Array(Self.vibration().utf8))
        #expect(piped.status == 0 && piped.out.contains("reference: (standard input)"), "\(piped.out) \(piped.err)")
    }
}
