import Foundation
import Testing
@testable import Haptics

/// Apple's loading rules where a key is unknown, does not apply, or carries a
/// value Apple says to ignore; and the messages that say so.
///
/// Apple, "Representing haptic patterns in AHAP files": "When Core Haptics loads
/// an AHAP file, it sets missing entries to their default value and clamps
/// out-of-range values to their minimum or maximum values, whichever is closer.
/// The framework ignores unsupported keys."
@Suite struct AHAPLoadingRulesTests {
    @Test("an entry whose only key is unknown is ignored with a warning, not an error")
    func entryOfUnknownKeysIsIgnored() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"EventType": "HapticTransient"}}, {"Evnt": {"EventType": "HapticTransient"}}, {}]}
            """)
        #expect(loaded.pattern.events.count == 1)
        #expect(loaded.warnings.map(\.description) == [
            "warning: Pattern[1]: entry ignored: it holds no Event, Parameter or ParameterCurve, only \"Evnt\" (did you mean \"Event\"?)",
            "warning: Pattern[2]: entry ignored: it holds no Event, Parameter or ParameterCurve, only nothing (an empty object)",
        ])
        // Two kinds in one entry is still ambiguous, so still an error.
        #expect(loadError(#"{"Pattern": [{"Event": {"EventType": "HapticTransient"}, "Parameter": {}}]}"#)?.rule
            == "an entry holds exactly one of Event, Parameter or ParameterCurve; found Event and Parameter")
    }

    // CHHapticPattern.h, CHHapticPatternKeyEventWaveformPath: "For events of type
    // CHHapticEventTypeAudioCustom, the path to the local file containing the audio waveform."
    @Test("a documented key that does not apply to the event type is warned about as such, null or not")
    func documentedKeysThatDoNotApplySayWhy() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"EventType": "HapticContinuous", "EventDuration": 1, "EventWaveformPath": null,
              "EventWaveformLoopEnabled": true}},
              {"Event": {"EventType": "HapticTransient", "EventWaveformPath": "a.wav", "EventWaveformUseVolumeEnvelope": 1}}]}
            """)
        #expect(loaded.pattern.events.allSatisfy { $0.waveform == nil })
        #expect(loaded.warnings.map(\.description) == [
            "warning: Pattern[0].Event.EventWaveformPath: EventWaveformPath applies only to AudioCustom events; ignored on a HapticContinuous event",
            "warning: Pattern[0].Event.EventWaveformLoopEnabled: EventWaveformLoopEnabled applies only to AudioCustom events; ignored on a HapticContinuous event",
            "warning: Pattern[1].Event.EventWaveformPath: EventWaveformPath applies only to AudioCustom events; ignored on a HapticTransient event",
            "warning: Pattern[1].Event.EventWaveformUseVolumeEnvelope: EventWaveformUseVolumeEnvelope applies only to AudioCustom events; ignored on a HapticTransient event",
        ])
        #expect(loaded.warnings.allSatisfy { $0.kind == .ignoredKey && !$0.message.contains("unknown") })
    }

    // CHHapticEvent.h, initWithAudioResourceID:…duration: "If the specified duration
    // is less than the duration of the audio resource, its playback will be
    // truncated. If it is greater, its playback will be padded with silence. If
    // zero, it will be ignored."
    @Test("an AudioCustom event's zero duration is ignored with a warning: the whole waveform plays")
    func audioCustomZeroDurationIsIgnored() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventDuration": 0, "Time": 0.5}}]}
            """)
        #expect(loaded.pattern.events[0].duration == nil && loaded.pattern.duration == 0.5)
        #expect(loaded.warnings.map(\.description) == [
            "warning: Pattern[0].Event.EventDuration: EventDuration 0 ignored: an AudioCustom event without a positive duration plays its whole waveform",
        ])
        // A continuous event still needs one: it has no file to take its length from.
        #expect(loadError(#"{"Pattern": [{"Event": {"EventType": "AudioContinuous", "EventDuration": 0}}]}"#)?.rule
            == "an AudioContinuous event needs a duration in (0, 30] s, found 0")
    }

    @Test("\"did you mean\" appears only when the names are close")
    func suggestionsOnlyForCloseNames() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"EventType": "HapticTransient", "Tme": 0, "EventDurration": 0, "ab": 1, "x": 2,
              "EventParams": [], "Loudness": 3}}]}
            """)
        #expect(loaded.warnings.map(\.message) == [
            "unknown key \"Tme\" ignored (did you mean \"Time\"?)",
            "unknown key \"EventDurration\" ignored (did you mean \"EventDuration\"?)",
            "unknown key \"ab\" ignored",
            "unknown key \"x\" ignored",
            "unknown key \"EventParams\" ignored",
            "unknown key \"Loudness\" ignored",
        ])
        #expect(Suggestion.closest(to: "ParameterCurves", among: ["Event", "Parameter", "ParameterCurve"]) == "ParameterCurve")
        #expect(Suggestion.closest(to: "Tiem", among: ["Time"]) == "Time")  // a swap is one edit
        #expect(Suggestion.closest(to: "id", among: ["ab"]) == nil)
        #expect(Suggestion.closest(to: "Event", among: ["Time"]) == nil)
    }

    @Test("input echoed in a message is capped at 64 characters, with its length")
    func echoedInputIsCapped() throws {
        let huge = String(repeating: "B", count: 1 << 20)
        let error = try #require(loadError(#"{"Pattern": [{"Event": {"EventType": "\#(huge)"}}]}"#))
        #expect(error.rule.hasPrefix("\"" + String(repeating: "B", count: 64) + "…\" (1048576 characters) is not an event type"))
        #expect(error.rule.count < 300)
        let warned = try load(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "\#(huge)": 1}}]}"#)
        #expect(warned.warnings.count == 1)
        #expect(warned.warnings[0].description.count < 400)
        #expect(warned.warnings[0].path.hasSuffix("…\" (1048576 characters)"))
        // Control characters in echoed input arrive escaped, never raw.
        let escaped = try #require(loadError(#"{"Pattern": [{"Event": {"EventType": "a\u001b[2Jb"}}]}"#))
        #expect(escaped.rule.hasPrefix(#""a\u001b[2Jb" is not an event type"#))
    }

    @Test("a .haptic document read as AHAP, or an AHAP read as .haptic, says which it is")
    func theOtherFormatIsNamed() throws {
        let haptic = try Fixtures.bytes(Fixtures.interop.appendingPathComponent("haptic/test-data/valid_v1.haptic"))
        #expect(throws: PatternLoadError(
            path: "(root)",
            rule: "this is a .haptic document (Meta Haptics Studio / Lofelt: it has \"signals\" or a \"version\" object), not an AHAP document; give the file the .haptic extension")) {
            try AHAPReader.read(haptic)
        }
        let ahap = try Fixtures.bytes(Fixtures.interop.appendingPathComponent("ahap/valid_v1.ahap"))
        #expect(throws: PatternLoadError(
            path: "(root)",
            rule: "this is an AHAP document (it has a \"Pattern\" array), not a .haptic document; give the file the .ahap extension")) {
            try LofeltHapticReader.read(ahap)
        }
    }

    @Test("a UTF-16 AHAP file is told the format is UTF-8")
    func utf16FileIsNamed() throws {
        let text = try String(decoding: Fixtures.bytes(Fixtures.apple.appendingPathComponent("Boing.ahap")), as: UTF8.self)
        let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(throws: PatternLoadError(
            path: "(JSON line 1, column 1)",
            rule: "the document is UTF-16 little-endian text (it starts with the byte-order mark FF FE); JSON text must be UTF-8 (RFC 8259, section 8.1): save the file as UTF-8")) {
            try AHAPReader.read(utf16)
        }
    }

    @Test("AHAP export is valid JSON whatever the metadata holds")
    func exportIsValidJSONWhateverTheMetadataHolds() throws {
        let nasty = "a\u{0}b\u{1B}[31m\u{7F}\u{85}\u{2028}\u{FFFE}\u{FFFF}\u{10FFFF}\"\\"
        var pattern = HapticPattern(events: [.transient(at: 0)])
        pattern.metadata = .init([.init(key: nasty, value: nasty), .init(key: "Description", value: nasty)])
        let written = AHAPWriter.string(pattern)
        #expect(written.unicodeScalars.allSatisfy { $0.isASCII })
        let reread = try AHAPReader.read(written)
        #expect(reread.pattern == pattern && reread.warnings.isEmpty)
        // Strict JSON, not only JSON-like: no trailing commas, nothing to warn about.
        #expect(try JSONParser.parse(written).warnings.isEmpty)
    }
}
