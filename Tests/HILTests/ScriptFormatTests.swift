import Bench
import HIL
import Measurements
import Testing

@Suite("HIL bench file and script formats")
struct ScriptFormatTests {
    let bench = """
        bench: b1
        devices:
          - {name: dut, address: sim, actuator: pmd-c10-100}
        features: [sled]
        """

    func benchFile() throws -> BenchFile { try BenchFile.parse(bench, file: "bench.yaml") }

    func scriptError(_ text: String) throws -> ScriptError {
        let b = try benchFile()
        do {
            _ = try TestScript.parse(text, file: "t.yaml", bench: b)
        } catch {
            return error
        }
        Issue.record("no error for:\n\(text)")
        return ScriptError(file: "", line: nil, key: "", rule: "")
    }

    @Test("A bench file gives its devices by address, the fixture and the features")
    func benchParses() throws {
        let b = try BenchFile.parse(
            bench + "\nfixture: {sled-mass-grams: 100, mounting: glued}\n", file: "bench.yaml")
        #expect(b.name == "b1" && b.devices.map(\.name) == ["dut"] && b.devices[0].address == .simulated)
        #expect(b.fixture.sledMassGrams == 100 && b.fixture.mounting == "glued" && b.features == ["sled"])
    }

    @Test("An unknown key is an error naming the file, the line and the key, and the key it is nearest")
    func unknownKey() throws {
        let e = try scriptError("suite: s\ntests:\n  - name: a\n    timout: 3\n    steps:\n      - diagnose:\n")
        #expect(e.file == "t.yaml" && e.line == 4 && e.key == "tests[0].timout")
        #expect(e.description.hasPrefix("t.yaml:4: tests[0].timout: unknown key (did you mean \"timeout\"?) (allowed here: "), "\(e)")
    }

    @Test("Scalars follow YAML 1.2's core schema: only a plain scalar is a number or a boolean; yes/on, 1_000 and 0x1p3 are not")
    func coreSchema() throws {
        let head = "suite: s\ntests:\n  - name: a\n    retries: "
        for ok in ["3", "+3", "0x3", "0o3"] {
            let s = try TestScript.parse(head + ok + "\n    steps:\n      - wait: 0\n", file: "t.yaml", bench: try benchFile())
            #expect(s.tests[0].retries == 3, "\(ok)")
        }
        for bad in ["\"3\"", "'3'", "3.0", "1_0", "three", "yes"] {
            let e = try scriptError(head + bad + "\n    steps:\n      - wait: 0\n")
            #expect(e.line == 4 && e.key == "tests[0].retries" && e.rule.hasPrefix("must be a whole number"), "\(bad): \(e)")
        }
        let waits = try TestScript.parse(
            "suite: s\ntests:\n  - name: a\n    steps:\n      - wait: 2.5\n      - wait: .5\n      - wait: 1e3\n      - wait: 7\n", file: "t.yaml", bench: try benchFile())
        #expect(waits.tests[0].steps.map(\.action) == [.wait(milliseconds: 2.5), .wait(milliseconds: 0.5), .wait(milliseconds: 1000), .wait(milliseconds: 7)])
        for bad in ["0x1p3", "1_000", "\"5\"", ".inf", "1:30"] {
            let e = try scriptError("suite: s\ntests:\n  - name: a\n    steps:\n      - wait: \(bad)\n")
            #expect(e.line == 5 && e.rule.contains("must be"), "\(bad): \(e)")
        }
    }

    @Test("Anchors and aliases share a node (a list of limits); the alias's errors name where it is used")
    func aliases() throws {
        let s = try TestScript.parse(
            "suite: s\ntests:\n  - name: a\n    steps:\n      - measure: ios.impact.heavy\n        limits: &l [{figure: rise, unit: ms, high: 20}]\n  - name: b\n    steps:\n      - measure: ios.impact.light\n        limits: *l\n",
            file: "t.yaml", bench: try benchFile())
        #expect(s.tests.map { $0.steps[0].limits.map(\.figure) } == [[.rise], [.rise]])
        let e = try scriptError("suite: s\ntests:\n  - name: a\n    steps:\n      - wait: &w x\n  - name: b\n    steps:\n      - wait: *w\n")
        #expect(e.line == 5 && e.key == "tests[0].steps[0].wait", "the first use is refused first: \(e)")
    }

    @Test("A limit in the wrong unit, on the wrong step, or without low/high is refused at its line")
    func limitRules() throws {
        let wrongUnit = try scriptError("suite: s\ntests:\n  - name: a\n    steps:\n      - measure: ios.impact.heavy\n        limits:\n          - {figure: rise, unit: g, high: 3}\n")
        #expect(wrongUnit.line == 7 && wrongUnit.key.hasSuffix("limits[0].unit") && wrongUnit.rule.contains("rise is in ms"))
        let wrongStep = try scriptError("suite: s\ntests:\n  - name: a\n    steps:\n      - diagnose:\n        limits:\n          - {figure: rise, unit: ms, high: 3}\n")
        #expect(wrongStep.line == 7 && wrongStep.rule.contains("measured by a measure step"))
        let noBound = try scriptError("suite: s\ntests:\n  - name: a\n    steps:\n      - measure: x\n        limits:\n          - {figure: rise, unit: ms}\n")
        #expect(noBound.line == 7 && noBound.rule.contains("low, high or both"))
    }

    @Test("A missing key, a step doing two things, a device the bench lacks and bad YAML are each one line")
    func otherErrors() throws {
        let missing = try scriptError("suite: s\ntests:\n  - name: a\n")
        #expect(missing.line == 3 && missing.rule == "missing key steps")
        let two = try scriptError("suite: s\ntests:\n  - name: a\n    steps:\n      - {diagnose: , wait: 3}\n")
        #expect(two.line == 5 && two.rule.contains("not diagnose and wait"))
        let device = try scriptError("suite: s\ntests:\n  - name: a\n    device: other\n    steps:\n      - diagnose:\n")
        #expect(device.line == 4 && device.key == "tests[0].device" && device.rule.contains("no device \"other\""))
        let yaml = try scriptError("suite: s\ntests: [\n")
        #expect(yaml.line != nil && yaml.rule.hasPrefix("not valid YAML"))
        let dup = try scriptError("suite: s\nsuite: t\ntests: []\n")
        #expect(dup.line == 2 && dup.rule == "given twice")
    }

    @Test("A sweep step takes hapbridge sweep's options and limits on f0, q and bandwidth; each rule broken names its line")
    func sweepStep() throws {
        let ok = try TestScript.parse(
            "suite: s\ntests:\n  - name: a\n    steps:\n      - sweep: {from: 140, to: 215, level: 0.5, settle: 100, window: 80}\n        limits:\n          - {figure: f0, unit: Hz, low: 170, high: 180}\n          - {figure: q, unit: \"1\", low: 8}\n          - {figure: bandwidth, unit: Hz, high: 25}\n      - sweep:\n",
            file: "t.yaml", bench: try benchFile())
        let steps = ok.tests[0].steps
        guard case .sweep(let o) = steps[0].action, case .sweep(let defaults) = steps[1].action else {
            Issue.record("not sweep steps: \(steps.map(\.action))")
            return
        }
        #expect(o.fromHz == 140 && o.toHz == 215 && o.level == 0.5 && o.settleMicroseconds == 100_000 && o.windowMicroseconds == 80_000)
        #expect(defaults == FrequencySweep.Options())
        #expect(steps[0].limits.map(\.figure) == [.f0, .q, .bandwidth] && steps[0].limits[0].name == "resonance f0 (sweep fit)")
        let head = "suite: s\ntests:\n  - name: a\n    steps:\n"
        let backwards = try scriptError(head + "      - sweep: {from: 200, to: 150}\n")
        #expect(backwards.line == 5 && backwards.key.hasSuffix("sweep.from") && backwards.rule.contains("not below"), "\(backwards)")
        let level = try scriptError(head + "      - sweep: {level: 2}\n")
        #expect(level.line == 5 && level.key.hasSuffix("sweep.level"), "\(level)")
        let unknown = try scriptError(head + "      - sweep: {form: 140}\n")
        #expect(unknown.rule.contains("unknown key"), "\(unknown)")
        let qOnMeasure = try scriptError(head + "      - measure: ios.impact.heavy\n        limits:\n          - {figure: q, unit: \"1\", low: 5}\n")
        #expect(qOnMeasure.line == 7 && qOnMeasure.rule.contains("q is measured by a sweep step"), "\(qOnMeasure)")
        let qUnit = try scriptError(head + "      - sweep:\n        limits:\n          - {figure: q, unit: Hz, low: 5}\n")
        #expect(qUnit.line == 7 && qUnit.rule.contains("q is in 1, not Hz"), "\(qUnit)")
        let f0OnPlay = try scriptError(head + "      - play: x\n        limits:\n          - {figure: f0, unit: Hz, low: 5}\n")
        #expect(f0OnPlay.rule.contains("measured by a diagnose or sweep step"), "\(f0OnPlay)")
    }

    @Test("A bench device address that does not parse names its line and the address rule")
    func badAddress() throws {
        do {
            _ = try BenchFile.parse("bench: b\ndevices:\n  - name: d\n    address: \"usb:\"\n    actuator: x\n", file: "b.yaml")
            Issue.record("no error")
        } catch {
            #expect(error.line == 4 && error.key == "devices[0].address" && error.rule.contains("serial number"), "\(error)")
        }
    }

    @Test("A bridge board's switchable hub port: uhubctl's location and port, the command it runs (as labgrid's USBPowerPort); refused on sim and with a bad location, at its line")
    func hubPort() throws {
        let b = try BenchFile.parse(
            "bench: b\ndevices:\n  - name: d\n    address: usb:1-1.2\n    actuator: x\n    power: {uhubctl: {location: \"1-1\", port: 2}}\n", file: "b.yaml")
        let power = try #require(b.devices[0].power)
        #expect(power == .uhubctl(location: "1-1", port: 2))
        #expect(power.command(on: false) == ["uhubctl", "-l", "1-1", "-p", "2", "-a", "off"])
        #expect(power.command(on: true) == ["uhubctl", "-l", "1-1", "-p", "2", "-a", "on"])
        for (text, line, rule) in [
            ("address: sim\n    actuator: x\n    power: {uhubctl: {location: \"1-1\", port: 2}}", 6, "bridge board on USB"),
            ("address: usb\n    actuator: x\n    power: {uhubctl: {location: \"hub one\", port: 2}}", 6, "BUS-PORT"),
            ("address: usb\n    actuator: x\n    power: {uhubctl: {location: \"1-1\", port: 0}}", 6, "1...255"),
            ("address: usb\n    actuator: x\n    power: {ykush: {port: 1}}", 6, "unknown key"),
        ] {
            do {
                _ = try BenchFile.parse("bench: b\ndevices:\n  - name: d\n    " + text + "\n", file: "b.yaml")
                Issue.record("no error for \(text)")
            } catch {
                #expect(error.line == line && error.key.hasPrefix("devices[0].power") && error.rule.contains(rule), "\(error)")
            }
        }
    }

    @Test("A flash step: empty for the carried firmware, a path, or {image: PATH}; an empty path or another key is refused")
    func flashStep() throws {
        let head = "suite: s\ntests:\n  - name: a\n    steps:\n"
        let ok = try TestScript.parse(head + "      - flash:\n      - flash: fw.hex\n      - flash: {image: build/fw.elf}\n", file: "t.yaml", bench: try benchFile())
        #expect(ok.tests[0].steps.map(\.action) == [.flash(image: nil), .flash(image: "fw.hex"), .flash(image: "build/fw.elf")])
        let empty = try scriptError(head + "      - flash: {image: \"\"}\n")
        #expect(empty.line == 5 && empty.key.hasSuffix("flash.image") && empty.rule.contains("Intel HEX or ELF"), "\(empty)")
        let other = try scriptError(head + "      - flash: {file: x.hex}\n")
        #expect(other.line == 5 && other.rule.contains("unknown key"), "\(other)")
    }

    @Test("Limits: outside is FAIL, within the marginal band inside a limit is MARGINAL")
    func verdicts() {
        let l = Limit(name: "rise", figure: .rise, unit: .milliseconds, low: 5, high: 20, marginal: 2)
        #expect(l.verdict(4.9) == .fail && l.verdict(20.1) == .fail)
        #expect(l.verdict(5.5) == .marginal && l.verdict(19) == .marginal)
        #expect(l.verdict(10) == .pass)
        #expect(Verdict.error > .fail && Verdict.fail > .skipped && Verdict.marginal > .pass)
    }
}
