import Testing
@testable import Haptics

/// .haptic validation rule for rule as Meta's own reader does it
/// (meta-haptics-sdk, core/haptic_data: `json.rs`, `version.rs`, `v1.rs`). Each
/// test quotes the validator's own message for the rule it pins.
@Suite struct LofeltValidationTests {
    static func document(amplitude: String, frequency: String? = nil, version: String = #"{"major": 1}"#) -> String {
        let envelopes = frequency.map { #""amplitude": \#(amplitude), "frequency": \#($0)"# } ?? #""amplitude": \#(amplitude)"#
        return #"{"version": \#(version), "signals": {"continuous": {"envelopes": {\#(envelopes)}}}}"#
    }

    func failure(_ text: String, _ validation: LofeltHapticReader.Validation = .legacyCompatibility) -> PatternLoadError? {
        do {
            _ = try LofeltHapticReader.read(text, validation: validation)
            return nil
        } catch {
            return error
        }
    }

    static let amplitudePath = "signals.continuous.envelopes.amplitude"

    // v1.rs: "the amplitude envelope must have a duration greater than zero"
    @Test("a clip of zero duration is refused, naming the envelope")
    func zeroDurationClipIsRefused() {
        let text = Self.document(amplitude: #"[{"time": 0.5, "amplitude": 0.2}, {"time": 0.5, "amplitude": 0.4}]"#)
        #expect(failure(text) == PatternLoadError(
            path: Self.amplitudePath,
            rule: "the amplitude envelope must have a duration greater than zero (every breakpoint is at 0.5 s)"))
        #expect(failure(text, .strict) == failure(text))
    }

    // v1.rs: "the amplitude envelope must contain at least two breakpoints"
    @Test("an envelope of fewer than two breakpoints is refused, empty or not")
    func fewerThanTwoBreakpointsAreRefused() {
        #expect(failure(Self.document(amplitude: "[]"))?.rule == "the amplitude envelope must contain at least two breakpoints, found 0")
        #expect(failure(Self.document(amplitude: #"[{"time": 0, "amplitude": 1}]"#))?.rule
            == "the amplitude envelope must contain at least two breakpoints, found 1")
    }

    // v1.rs (strict only): "frequency breakpoint at {time} is after end of amplitude
    // envelope at {amplitude_envelope_end}"; ValidationMode::LegacyCompatibility:
    // "Some rules are not validated, to stay compatible with .haptic files that were
    // created with earlier versions of Haptics Studio, which created invalid haptic data."
    @Test("a frequency breakpoint outside the amplitude envelope: refused by strict validation, warned by Studio's")
    func frequencyOutsideTheEnvelope() throws {
        let text = Self.document(
            amplitude: #"[{"time": 0.1, "amplitude": 0.2}, {"time": 1, "amplitude": 0.4}]"#,
            frequency: #"[{"time": 0.1, "frequency": 0.5}, {"time": 1.0001, "frequency": 0.5}, {"time": 1.5, "frequency": 0.5}]"#)
        #expect(failure(text, .strict) == PatternLoadError(
            path: "signals.continuous.envelopes.frequency[1].time",
            rule: "frequency breakpoint at 1.0001 s lies outside the amplitude envelope (0.1…1 s)"))
        let loaded = try LofeltHapticReader.read(text)
        #expect(loaded.warnings == [PatternWarning(
            path: "signals.continuous.envelopes.frequency[1].time", kind: .compatibility,
            message: "frequency breakpoint at 1.0001 s (and 1 more) lies outside the amplitude envelope (0.1…1 s): Meta's strict validation rejects this; Haptics Studio loads it, and so does this reader")])
        // Before the envelope's first breakpoint is outside it too.
        let early = Self.document(
            amplitude: #"[{"time": 0.1, "amplitude": 0.2}, {"time": 1, "amplitude": 0.4}]"#,
            frequency: #"[{"time": 0, "frequency": 0.5}]"#)
        #expect(failure(early, .strict)?.path == "signals.continuous.envelopes.frequency[0].time")
    }

    @Test("Lofelt's own 2_points.haptic has a frequency breakpoint 0.45 ms past its envelope: strict refuses it")
    func realFileOutsideTheEnvelope() throws {
        #expect(throws: PatternLoadError(
            path: "signals.continuous.envelopes.frequency[1].time",
            rule: "frequency breakpoint at 2 s lies outside the amplitude envelope (0…1.9995465 s)")) {
            try Fixtures.haptic("2_points.haptic", validation: .strict)
        }
        #expect(try Fixtures.haptic("2_points.haptic").warnings.map(\.kind) == [.compatibility])
    }

    @Test("23 of the 131 effects of Meta's library break the strict rule, and only that rule")
    func metasLibraryNeedsStudiosValidation() throws {
        let library = Fixtures.files(in: Fixtures.interop.appendingPathComponent("haptic/library"), extension: "haptic")
        #expect(library.count == 131)
        var strictFailures: [PatternLoadError] = []
        for file in library {
            let bytes = try Fixtures.bytes(file)
            _ = try LofeltHapticReader.read(bytes)
            do { _ = try LofeltHapticReader.read(bytes, validation: .strict) } catch { strictFailures.append(error) }
        }
        #expect(strictFailures.count == 23)
        #expect(strictFailures.allSatisfy { $0.rule.contains("lies outside the amplitude envelope") })
    }

    // v1.rs, in this order per breakpoint: "amplitude out of range", "amplitude
    // breakpoints out of order", "emphasis amplitude out of range", "emphasis
    // frequency out of range", "emphasis amplitude lower than envelope amplitude";
    // then per frequency breakpoint "frequency out of range", "frequency breakpoints
    // out of order".
    @Test("range, order and emphasis rules, each refused with the path of the value that breaks it")
    func breakpointRules() {
        let ok = #"{"time": 1, "amplitude": 0.5}"#
        let cases: [(amplitude: String, frequency: String?, path: String, rule: String)] = [
            (#"[{"time": 0, "amplitude": 1.5}, \#(ok)]"#, nil, "amplitude[0].amplitude", "amplitude 1.5 is outside 0…1"),
            (#"[{"time": -0.1, "amplitude": 0.5}, \#(ok)]"#, nil, "amplitude[0].time", "breakpoint times start at 0 or later, found -0.1"),
            (#"[{"time": 2, "amplitude": 0.5}, \#(ok)]"#, nil, "amplitude[1].time", "breakpoint times must not decrease (1 after 2)"),
            // Range before order, as Meta checks them.
            (#"[{"time": 2, "amplitude": 0.5}, {"time": 1, "amplitude": 7}]"#, nil, "amplitude[1].amplitude", "amplitude 7 is outside 0…1"),
            (#"[{"time": 0, "amplitude": 0.5, "emphasis": {"amplitude": 1.2, "frequency": 0.5}}, \#(ok)]"#, nil,
             "amplitude[0].emphasis.amplitude", "emphasis amplitude 1.2 is outside 0…1"),
            (#"[{"time": 0, "amplitude": 0.5, "emphasis": {"amplitude": 0.6, "frequency": -1}}, \#(ok)]"#, nil,
             "amplitude[0].emphasis.frequency", "emphasis frequency -1 is outside 0…1"),
            (#"[{"time": 0, "amplitude": 0.5, "emphasis": {"amplitude": 0.4, "frequency": 0.5}}, \#(ok)]"#, nil,
             "amplitude[0].emphasis.amplitude", "an emphasis may not be weaker than its breakpoint (0.4 < 0.5)"),
            (#"[{"time": 0, "amplitude": 0.5}, \#(ok)]"#, #"[{"time": 0, "frequency": 2}]"#,
             "frequency[0].frequency", "frequency 2 is outside 0…1"),
            (#"[{"time": 0, "amplitude": 0.5}, \#(ok)]"#, #"[{"time": 0.5, "frequency": 0.2}, {"time": 0.25, "frequency": 0.2}]"#,
             "frequency[1].time", "breakpoint times must not decrease (0.25 after 0.5)"),
        ]
        for c in cases {
            #expect(failure(Self.document(amplitude: c.amplitude, frequency: c.frequency))
                == PatternLoadError(path: "signals.continuous.envelopes." + c.path, rule: c.rule), "\(c.path)")
        }
    }

    // version.rs: `major: u32`, `minor` and `patch` `#[serde(default)] u32`;
    // json.rs: a major other than 1 is "unsupported version".
    @Test("version numbers are whole numbers from 0 up; only major version 1 is read")
    func versionRules() {
        let amplitude = #"[{"time": 0, "amplitude": 0.5}, {"time": 1, "amplitude": 0.5}]"#
        #expect(failure(Self.document(amplitude: amplitude, version: #"{"major": 1, "minor": 2, "patch": 3}"#)) == nil)
        #expect(failure(Self.document(amplitude: amplitude, version: #"{"major": 1.5}"#))
            == PatternLoadError(path: "version.major", rule: "a version number is a whole number from 0 up, found 1.5"))
        #expect(failure(Self.document(amplitude: amplitude, version: #"{"major": 1, "minor": -1}"#))?.path == "version.minor")
        #expect(failure(Self.document(amplitude: amplitude, version: #"{"major": 2}"#))?.rule
            == "version 2 is not supported; this reader knows data model v1")
        #expect(failure(Self.document(amplitude: amplitude, version: #"{"minor": 0}"#))?.path == "version.major")
    }

    @Test("a known field given twice is refused, as serde refuses a duplicate field")
    func repeatedFieldsAreRefused() {
        let text = Self.document(amplitude: #"[{"time": 0, "amplitude": 0.5, "amplitude": 0.6}, {"time": 1, "amplitude": 0.5}]"#)
        #expect(failure(text) == PatternLoadError(
            path: "signals.continuous.envelopes.amplitude[0].amplitude",
            rule: "key repeated; Meta's reader refuses a repeated field (serde: \"duplicate field\")"))
    }

    @Test("optional parts may be null; a .haptic file is strict JSON, so a trailing comma is an error")
    func optionalNullsAndStrictJSON() throws {
        let text = #"{"version": {"major": 1}, "metadata": null, "signals": {"continuous": {"envelopes": {"#
            + #""amplitude": [{"time": 0, "amplitude": 0.5, "emphasis": null}, {"time": 1, "amplitude": 0.5}], "frequency": null}}}}"#
        #expect(try LofeltHapticReader.read(text).warnings.isEmpty)
        let trailing = Self.document(amplitude: #"[{"time": 0, "amplitude": 0.5}, {"time": 1, "amplitude": 0.5},]"#)
        #expect(failure(trailing)?.rule == "trailing comma before ']': a comma in an array must be followed by another element")
    }
}
