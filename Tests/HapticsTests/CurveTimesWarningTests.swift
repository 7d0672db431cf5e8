import Foundation
import Testing
@testable import Haptics

/// A curve whose first control point sits at the curve's own non-zero Time was
/// almost certainly written with absolute times (Lofelt's haptic2ahap and Meta's
/// converter write them so); Core Haptics counts them from the curve's Time, so it
/// would play late. The reader says so, with the path, and names the option.
@Suite struct CurveTimesWarningTests {
    static func curve(at time: Double, points: [(Double, Double)]) -> String {
        let list = points.map { #"{"Time": \#($0.0), "ParameterValue": \#($0.1)}"# }.joined(separator: ", ")
        return #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": \#(time), "ParameterCurveControlPoints": [\#(list)]}}"#
    }

    static func document(_ entries: [String]) -> String {
        #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1}}, "#
            + entries.joined(separator: ", ") + "]}"
    }

    static func curveTimeWarnings(_ loaded: LoadedPattern) -> [PatternWarning] {
        loaded.warnings.filter { $0.message.contains("--curve-times absolute") }
    }

    @Test("a curve at 0.25 s whose first point is at 0.25 s warns once, with the point's path, and names --curve-times absolute")
    func absoluteLookingCurveWarns() throws {
        let loaded = try load(Self.document([Self.curve(at: 0.25, points: [(0.25, 0.1), (0.5, 1)])]))
        let warnings = Self.curveTimeWarnings(loaded)
        #expect(warnings.count == 1)
        #expect(warnings.first?.path == "Pattern[1].ParameterCurve.ParameterCurveControlPoints[0].Time")
        #expect(warnings.first?.kind == .compatibility)
        #expect(warnings.first?.message.contains("plays 0.25 s late") == true)
    }

    @Test("several such curves make one warning that counts the others")
    func severalCurvesOneWarning() throws {
        let loaded = try load(Self.document([
            Self.curve(at: 0.25, points: [(0.25, 0.1), (0.5, 1)]), Self.curve(at: 0.5, points: [(0.5, 1), (0.75, 0.2)]),
        ]))
        let warnings = Self.curveTimeWarnings(loaded)
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("(and in 1 more curves)") == true)
    }

    @Test("no warning for a curve at 0, for relative times, or when read with absolute times")
    func noWarningWhereTheReadingIsClear() throws {
        #expect(Self.curveTimeWarnings(try load(Self.document([Self.curve(at: 0, points: [(0, 0.1), (0.5, 1)])]))).isEmpty)
        #expect(Self.curveTimeWarnings(try load(Self.document([Self.curve(at: 0.25, points: [(0, 0.1), (0.25, 1)])]))).isEmpty)
        let absolute = try AHAPReader.read(
            Self.document([Self.curve(at: 0.25, points: [(0.25, 0.1), (0.5, 1)])]), options: .init(controlPointTimes: .absolute))
        #expect(Self.curveTimeWarnings(absolute).isEmpty)
        // Read as absolute, the points count from the curve's start: 0 and 0.25 s.
        #expect(absolute.pattern.curves[0].controlPoints.map(\.time) == [0, 0.25])
    }

    @Test("Meta's expected AHAP for multiple_emphasis.haptic (sharpness curve at 0.01 s) warns when read by Core Haptics' rule")
    func metasOwnOutputWarns() throws {
        let warnings = Self.curveTimeWarnings(try Fixtures.metaFile("multiple_emphasis.ahap"))
        #expect(warnings.map(\.path) == ["Pattern[1].ParameterCurve.ParameterCurveControlPoints[0].Time"])
        #expect(Self.curveTimeWarnings(try Fixtures.metaFile("multiple_emphasis.ahap", curveTimes: .absolute)).isEmpty)
    }
}
