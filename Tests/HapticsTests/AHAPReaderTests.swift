import Testing
@testable import Haptics

@Suite struct AHAPReaderTests {
    @Test func missingKeysTakeCoreHapticsDefaults() throws {
        let loaded = try load(#"{"Pattern": [{"Event": {"EventType": "HapticTransient"}}]}"#)
        let event = try #require(loaded.pattern.events.first)
        #expect(loaded.pattern.version == 1)
        #expect(event.time == 0)
        #expect(event.parameters == EventParameters())
        #expect(event.parameters.intensity == 1 && event.parameters.sharpness == 1)
        #expect(loaded.warnings.isEmpty)
    }

    @Test func outOfRangeValuesAreClampedWithAWarningNamingThePath() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"Time": -1, "EventType": "HapticContinuous", "EventDuration": 45,
              "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.5},
                                  {"ParameterID": "HapticSharpness", "ParameterValue": -0.2}]}},
              {"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": 3}}]}
            """)
        let event = try #require(loaded.pattern.events.first)
        #expect(event.time == 0 && event.duration == 30)
        #expect(event.parameters.intensity == 1 && event.parameters.sharpness == 0)
        #expect(loaded.pattern.parameters.first?.value == 1)
        #expect(loaded.warnings.map(\.path) == [
            "Pattern[0].Event.Time", "Pattern[0].Event.EventDuration",
            "Pattern[0].Event.EventParameters[0].ParameterValue", "Pattern[0].Event.EventParameters[1].ParameterValue",
            "Pattern[1].Parameter.ParameterValue",
        ])
        #expect(loaded.warnings.allSatisfy { $0.kind == .clamped })
        #expect(loaded.warnings[2].message == "HapticIntensity 1.5 is outside 0…1; clamped to 1")
    }

    @Test func unknownKeysAreIgnoredWithAWarning() throws {
        let loaded = try load("""
            {"Version": 1, "Colour": "red", "Pattern": [{"Event": {"EventType": "HapticTransient", "Loudness": 3,
              "EventParameters": [{"ParameterID": "HapticWobble", "ParameterValue": 1}]}}]}
            """)
        #expect(loaded.pattern.events.count == 1)
        #expect(Set(loaded.warnings.map(\.path)) == [
            "Colour", "Pattern[0].Event.Loudness", "Pattern[0].Event.EventParameters[0].ParameterID"])
    }

    @Test func parametersThatDoNotApplyToTheEventTypeAreIgnoredWithAWarning() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"EventType": "HapticTransient",
              "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.2},
                                  {"ParameterID": "AttackTime", "ParameterValue": 0.2}]}}]}
            """)
        #expect(loaded.pattern.events[0].parameters == EventParameters())
        #expect(loaded.warnings.map(\.message) == [
            "AudioVolume does not apply to a HapticTransient event; ignored",
            "AttackTime does not apply to a HapticTransient event; ignored",
        ])
    }

    @Test func aContinuousEventWithoutAValidDurationIsAnErrorNamingPathAndRule() {
        let text = """
            {"Pattern": [{"Event": {"EventType": "HapticTransient"}}, {"Event": {"EventType": "HapticTransient"}},
              {"Event": {"EventType": "HapticTransient"}}, {"Event": {"EventType": "HapticContinuous", "EventDuration": 0}}]}
            """
        #expect(loadError(text)?.description
            == "Pattern[3].Event.EventDuration: a HapticContinuous event needs a duration in (0, 30] s, found 0")
        let missing = #"{"Pattern": [{"Event": {"EventType": "HapticContinuous"}}]}"#
        #expect(loadError(missing)?.description
            == "Pattern[0].Event.EventDuration: a HapticContinuous event needs a duration in (0, 30] s")
    }

    @Test func documentsThatCannotBeAPatternAreErrors() {
        let cases: [(String, String)] = [
            ("[]", "(root)"),
            ("{}", "Pattern"),
            (#"{"Pattern": {}}"#, "Pattern"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticBuzz"}}]}"#, "Pattern[0].Event.EventType"),
            (#"{"Pattern": [{"Event": {}}]}"#, "Pattern[0].Event.EventType"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": "soon"}}]}"#, "Pattern[0].Event.Time"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 1e400}}]}"#, "Pattern[0].Event.Time"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 1e308}}]}"#, "Pattern[0].Event.Time"),
            (#"{"Pattern": [{"Event": {"EventType": "AudioCustom"}}]}"#, "Pattern[0].Event.EventWaveformPath"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient"}, "Parameter": {}}]}"#, "Pattern[0]"),
            (#"{"Pattern": [{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": []}}]}"#,
             "Pattern[0].ParameterCurve.ParameterCurveControlPoints"),
            (#"{"Pattern": [{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": 1, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 1}]}}]}"#,
             "Pattern[0].ParameterCurve.ParameterCurveControlPoints[1].Time"),
            (#"{"Pattern": [1, "x"]"#, "(JSON line 1, column 21)"),
        ]
        for (text, path) in cases {
            #expect(loadError(text)?.path == path, "\(text)")
        }
    }

    @Test func theEntryLimitGuardsMemory() {
        var options = AHAPReader.Options()
        options.limits.maxEntries = 3
        let text = #"{"Pattern": ["# + Array(repeating: #"{"Event": {"EventType": "HapticTransient"}}"#, count: 4)
            .joined(separator: ",") + "]}"
        #expect(throws: PatternLoadError(path: "Pattern", rule: "4 entries; the limit is 3")) {
            try AHAPReader.read(text, options: options)
        }
    }

    @Test func everyKeyOfTheFormatIsRead() throws {
        let loaded = try load("""
            {"Version": 1.0, "Metadata": {"Project": "p", "Created": "c", "Description": "d", "Extra": "e"},
             "Pattern": [
              {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 2, "EventParameters": [
                 {"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.25},
                 {"ParameterID": "AttackTime", "ParameterValue": 0.1}, {"ParameterID": "DecayTime", "ParameterValue": 0.2},
                 {"ParameterID": "ReleaseTime", "ParameterValue": 0.3}, {"ParameterID": "Sustained", "ParameterValue": 0}]}},
              {"Event": {"Time": 0.2, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [
                 {"ParameterID": "AudioVolume", "ParameterValue": 0.4}, {"ParameterID": "AudioPitch", "ParameterValue": -0.5},
                 {"ParameterID": "AudioPan", "ParameterValue": 0.5}, {"ParameterID": "AudioBrightness", "ParameterValue": 0.6}]}},
              {"Event": {"Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "chime.wav",
                 "EventWaveformUseVolumeEnvelope": true, "EventWaveformLoopEnabled": false}},
              {"Parameter": {"ParameterID": "HapticReleaseTimeControl", "Time": 0.5, "ParameterValue": 0.25}},
              {"ParameterCurve": {"ParameterID": "AudioVolumeControl", "Time": 1, "ParameterCurveControlPoints": [
                 {"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}]}
            """)
        #expect(loaded.warnings.isEmpty)
        let p = loaded.pattern
        #expect(p.metadata["Extra"] == "e" && p.metadata["Description"] == "d")
        #expect(p.events[0].parameters == EventParameters(
            intensity: 0.5, sharpness: 0.25, attackTime: 0.1, decayTime: 0.2, releaseTime: 0.3, sustained: false))
        #expect(p.events[1].parameters.audioPitch == -0.5 && p.events[1].parameters.audioBrightness == 0.6)
        #expect(p.events[2].waveform == HapticEvent.Waveform(path: "chime.wav", useVolumeEnvelope: true))
        #expect(p.events[2].duration == nil)
        #expect(p.parameters == [DynamicParameter(id: .hapticReleaseTimeControl, value: 0.25, time: 0.5)])
        #expect(p.curves[0].id == .audioVolumeControl && p.curves[0].controlPoints.count == 2)
        #expect(p.audioEvents.count == 2 && p.hapticEvents.count == 1)
        #expect(p.duration == 2.1)
    }

    @Test func writingThenReadingGivesAnEqualPattern() throws {
        // Studio's export writes absolute control-point times (read as such, it is
        // written back relative, as Core Haptics counts them).
        let studio = try AHAPReader.read(
            Fixtures.bytes(Fixtures.interop.appendingPathComponent("ahap/studio_export.ahap")), options: .init(controlPointTimes: .absolute))
        var sources = try [Fixtures.example("SOS.ahap").pattern, studio.pattern]
        sources += SystemHapticLibrary.all.map(\.pattern)
        sources.append(HapticPattern(
            events: [.continuous(at: 0.5, duration: 1.25, intensity: 0.3, sharpness: 0.7, attack: 0.2, decay: 0.4, release: 0.1, sustained: false),
                     HapticEvent(type: .audioCustom, time: 1, duration: 0.5,
                                 parameters: EventParameters(audioVolume: 0.5, audioPitch: 0.1),
                                 waveform: .init(path: "a.wav", useVolumeEnvelope: true, loopEnabled: true))],
            parameters: [DynamicParameter(id: .hapticIntensityControl, value: 0.123456789, time: 0.1)],
            curves: [ParameterCurve(id: .hapticSharpnessControl, time: 0.2, controlPoints: [.init(time: 0, value: -0.5), .init(time: 0.3, value: 0.5)])],
            metadata: .init(project: "x", description: "ünïcödé \"quoted\"")))
        for pattern in sources {
            let reread = try AHAPReader.read(AHAPWriter.string(pattern))
            #expect(reread.pattern == pattern)
            #expect(reread.warnings.isEmpty)
        }
    }

    @Test func lofeltConverterFilesCanBeReadWithAbsoluteControlPointTimes() throws {
        let relative = try Fixtures.ahap("17_points.ahap").pattern
        let absolute = try AHAPReader.read(
            Fixtures.bytes(Fixtures.interop.appendingPathComponent("ahap/17_points.ahap")),
            options: .init(controlPointTimes: .absolute)).pattern
        // The second intensity curve starts at 15 s with points written at 15 and 16 s.
        #expect(relative.curves[1].controlPoints.map(\.time) == [15, 16])
        #expect(absolute.curves[1].controlPoints.map(\.time) == [0, 1])
    }
}

@Suite struct AHAPSuggestionTests {
    @Test func misspeltKeysAndNamesGetADidYouMeanHint() throws {
        let loaded = try load("""
            {"Pattern": [{"Event": {"EventType": "HapticTransient", "Tiem": 0.5,
              "EventParameters": [{"ParameterID": "HapticIntensty", "ParameterValue": 0.5}]}}]}
            """)
        #expect(loaded.warnings.map(\.message) == [
            "unknown event parameter \"HapticIntensty\" ignored (did you mean \"HapticIntensity\"?)",
            "unknown key \"Tiem\" ignored (did you mean \"Time\"?)",
        ])
        #expect(loadError(#"{"Pattern": [{"Event": {"EventType": "HapticTransiant"}}]}"#)?.rule
            == "\"HapticTransiant\" is not an event type (did you mean \"HapticTransient\"?); use one of HapticTransient, HapticContinuous, AudioContinuous, AudioCustom")
    }

    @Test func everyInteropAHAPFileLoadsWithOnlyTheWarningsItEarns() throws {
        let files = Fixtures.interopAHAP
        #expect(files.count == 15)
        for file in files {
            let loaded = try AHAPReader.read(Fixtures.bytes(file))
            #expect(!loaded.pattern.events.isEmpty, "\(file.lastPathComponent)")
            switch file.lastPathComponent {
            case "invalid_fields.ahap":
                // Its second entry says "ParameterCurves", which is no AHAP entry type:
                // ignored, as Apple ignores unsupported keys, and said so.
                #expect(loaded.warnings.map(\.description) == [
                    "warning: Pattern[1]: entry ignored: it holds no Event, Parameter or ParameterCurve, only \"ParameterCurves\" (did you mean \"ParameterCurve\"?)",
                ])
                #expect(loaded.pattern.curves.isEmpty)
            default:
                #expect(loaded.warnings.allSatisfy { $0.kind == .compatibility }, "\(file.lastPathComponent): \(loaded.warnings)")
            }
        }
    }
}
