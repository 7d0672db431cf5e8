import Testing
@testable import Haptics

/// Apple's own sample AHAP files (its Core Haptics plug-in for Unity; origin and
/// licence in Tests/Fixtures/README.md) load as Apple wrote them.
///
/// "AHAP is a JSON-like file format that specifies a haptic pattern through
/// key-value pairs" (Apple, "Representing haptic patterns in AHAP files"): three
/// of these four files carry trailing commas, which JSON does not allow.
@Suite struct AppleSampleFilesTests {
    @Test("Apple's sample AHAPs load; each trailing comma is a warning naming its line and column")
    func appleSamplesLoadWithTrailingCommaWarnings() throws {
        let expected: [String: [String]] = [
            "Boing.ahap": [],
            "Bounce.ahap": ["(JSON line 6, column 75)"],
            "Close.ahap": ["(JSON line 6, column 81)", "(JSON line 53, column 22)", "(JSON line 73, column 10)"],
            "Recharge.ahap": ["(JSON line 46, column 63)"],
        ]
        #expect(Fixtures.appleAHAP.map(\.lastPathComponent) == expected.keys.sorted())
        for file in Fixtures.appleAHAP {
            let loaded = try AHAPReader.read(Fixtures.bytes(file))
            let name = file.lastPathComponent
            #expect(loaded.warnings.map(\.path) == expected[name], "\(name)")
            #expect(loaded.warnings.allSatisfy { $0.kind == .compatibility && $0.message.hasPrefix("trailing comma before") })
            #expect(!loaded.pattern.events.isEmpty)
        }
        let close = try Fixtures.appleSample("Close.ahap")
        #expect(close.warnings.map(\.message) == [
            "trailing comma before '}' ignored (JSON has none; Apple's own sample AHAP files do)",
            "trailing comma before ']' ignored (JSON has none; Apple's own sample AHAP files do)",
            "trailing comma before ']' ignored (JSON has none; Apple's own sample AHAP files do)",
        ])
    }

    @Test("the sample files read as Apple wrote them: events, curves and metadata")
    func closeReadsAsWritten() throws {
        let pattern = try Fixtures.appleSample("Close.ahap").pattern
        #expect(pattern.metadata["Description"] == "Increasing tension and friction, with an end transient")
        #expect(pattern.events.map(\.type) == [.hapticContinuous, .hapticTransient])
        #expect(pattern.events.map(\.time) == [0, 0.11])
        #expect(pattern.events[0].parameters.intensity == 0.6 && pattern.events[0].parameters.sharpness == 0.4)
        #expect(pattern.curves.map(\.id) == [.hapticSharpnessControl, .hapticIntensityControl])
        #expect(pattern.curves[1].controlPoints == [.init(time: 0, value: 0), .init(time: 0.1, value: 1)])
    }

    @Test("a trailing comma is the one leniency: every other JSON error in an AHAP still fails and says what it found")
    func otherSyntaxErrorsStillFail() {
        let cases: [(String, String)] = [
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient"}} {"Event": {}}]}"#,
             "(JSON line 1, column 58): missing ',' between array elements"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient" "Time": 1}}]}"#,
             "(JSON line 1, column 56): missing ',' between object members"),
            (#"{"Pattern": [{"Event": {"EventType": "HapticTransient}}]}"#,
             "(JSON line 1, column 38): unterminated string: no closing quote before the end of the document"),
            (#"{"Pattern": [,]}"#, "(JSON line 1, column 14): expected a value, found ','"),
            (#"{"Pattern": [], "Version": NaN}"#, "(JSON line 1, column 28): NaN and Infinity are not JSON numbers"),
            (#"{"Pattern": [], "Version": None}"#, "(JSON line 1, column 28): expected a value, found 'N'"),
        ]
        for (text, expected) in cases {
            #expect(loadError(text)?.description == expected, "\(text)")
        }
    }
}
