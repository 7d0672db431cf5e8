import Foundation
import Testing

@testable import Plot

/// A plot reads at a glance: nothing sits on the frame, impulses at the ends of the
/// axis stand inside it, a second value of an impulse shows without hovering, a
/// missing value is a gap, and no text or value can break the document.
@Suite struct PlotReadabilityTests {
    static func taps(at xs: [Double], sharpness: Double = 0.25) -> Plot {
        Plot(
            title: "taps", xLabel: "time (ms)", yLabel: "value", yRange: 0...1, xRange: 0...100,
            impulseGroups: [.init(
                name: "transient", color: Plot.Palette.vermillion,
                impulses: xs.map { .init(x: $0, y: 1, marker: sharpness, detail: "tap") },
                marker: (name: "transient sharpness", color: Plot.Palette.orange))])
    }

    /// The stems: lines drawn inside the impulse groups (each in a `<g>` with a title).
    static func stems(_ document: SVGElements) -> [SVGElements.Element] {
        document.all("line").filter { $0.attributes["stroke-width"] == "2" && $0.attributes["stroke"] == nil }
    }

    @Test("Impulses at the first and last x of the axis stand inside the frame, clear of its edges")
    func impulsesAtTheEndsAreInsideTheFrame() throws {
        let document = try SVGElements(Self.taps(at: [0, 100]).svg())
        let frame = try #require(document.frame)
        let stems = Self.stems(document)
        #expect(stems.count == 2)
        for stem in stems {
            let x = try #require(stem.number("x1"))
            #expect(x > frame.left + 8 && x < frame.right - 8, "stem at \(x), frame \(frame.left)...\(frame.right)")
        }
    }

    @Test("Values at the top and bottom of the y range are drawn clear of the frame (headroom)")
    func tracesAtTheRangeEdgesLeaveHeadroom() throws {
        let plot = Plot(
            title: "full", xLabel: "x", yLabel: "y", yRange: 0...1,
            series: [.init(name: "at one", color: "#000", xs: [0, 50, 100], ys: [1, 1, 1]), .init(name: "at zero", color: "#111", xs: [0, 100], ys: [0, 0])])
        let document = try SVGElements(plot.svg())
        let frame = try #require(document.frame)
        for path in document.all("path") where path.attributes["fill"] == "none" {
            for point in SVGElements.subpaths(path.attributes["d"] ?? "").joined() {
                #expect(point.y > frame.top + 8 && point.y < frame.bottom - 8, "\(path.attributes["stroke"] ?? "") at y \(point.y)")
            }
        }
        // Fitted ranges too: the extremes of a signed trace stay inside.
        let signed = try SVGElements(Plot(title: "a", xLabel: "x", yLabel: "g", series: [.init(name: "a", color: "#000", xs: [0, 1, 2], ys: [0, 0.6, -0.5])]).svg())
        let f = try #require(signed.frame)
        let ys = try #require(signed.all("path").first).attributes["d"].map { SVGElements.subpaths($0).joined().map(\.y) } ?? []
        #expect(ys.allSatisfy { $0 > f.top + 8 && $0 < f.bottom - 8 })
        // The axis still labels the data's range, not the padded one.
        #expect(document.all("text").map(\.text).contains("1.0"))
        #expect(!document.all("text").map(\.text).contains("1.2"))
    }

    @Test("An impulse's marker is a diamond at its value, in the marker's colour, named in the legend")
    func markersShowTheSecondValue() throws {
        let plot = Self.taps(at: [50], sharpness: 0.25)
        let document = try SVGElements(plot.svg())
        let renderer = SVGRenderer(plot: plot)
        let diamonds = document.all("path").filter { $0.attributes["fill"] == Plot.Palette.orange }
        #expect(diamonds.count == 2)  // the impulse's and the legend's
        let points = SVGElements.subpaths(diamonds[0].attributes["d"] ?? "").joined()
        let centre = points.map(\.y).reduce(0, +) / Double(points.count)
        #expect(abs(centre - renderer.py(0.25)) < 0.01)
        #expect(document.all("text").contains { $0.text == "transient sharpness" })
    }

    @Test("A NaN in a series is a gap: the line stops and starts again")
    func nanBreaksTheLine() throws {
        let plot = Plot(
            title: "gaps", xLabel: "x", yLabel: "y",
            series: [.init(name: "s", color: "#000", xs: [0, 1, 2, 3, 4, 5, 6], ys: [0.5, 0.5, .nan, .nan, 0.7, 0.7, .nan])])
        let document = try SVGElements(plot.svg())
        let path = try #require(document.all("path").first)
        let runs = SVGElements.subpaths(path.attributes["d"] ?? "")
        #expect(runs.map(\.count) == [2, 2])
    }

    @Test("Every character XML 1.0 forbids or discourages becomes U+FFFD; markup is escaped")
    func anyTextMakesWellFormedXML() throws {
        var text = (0..<0x100).map { String(Character(Unicode.Scalar(UInt8($0)))) }.joined()
        text += String(String.UnicodeScalarView([0xFFFE, 0xFFFF, 0xFDD0, 0x1FFFE, 0x202E].compactMap(Unicode.Scalar.init))) + "end"
        let plot = Plot(
            title: text, subtitle: text, xLabel: text, yLabel: text,
            series: [.init(name: text, color: "#000", xs: [0, 1], ys: [0, 1])],
            impulseGroups: [.init(name: text, color: "#111", impulses: [.init(x: 0.5, y: 0.5, marker: 0.2, detail: text)], marker: (name: text, color: "#222"))],
            annotations: [.init(x: 1, y: 1, label: text)])
        let document = try SVGElements(plot.svg())
        let title = try #require(document.all("text").first)
        #expect(title.text.contains("!\"#$%&'()") && title.text.contains(";<=>?"))
        #expect(title.text.hasSuffix("\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{202E}end"))
        #expect(!title.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" })
    }

    @Test("Huge, tiny and non-finite values draw without trapping, and the document stays well-formed")
    func hostileValuesDraw() throws {
        let values: [Double] = [0, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 1e-300, .leastNonzeroMagnitude]
        for fixed in [nil, 0...1e300, -Double.infinity...Double.infinity] as [ClosedRange<Double>?] {
            let plot = Plot(
                title: "hostile", xLabel: "x", yLabel: "y", yRange: fixed, xRange: fixed,
                series: [.init(name: "s", color: "#000", xs: values, ys: values.reversed(), filled: true)],
                impulseGroups: [.init(name: "i", color: "#111", impulses: values.map { .init(x: $0, y: $0, marker: $0) }, marker: (name: "m", color: "#222"))],
                annotations: values.map { .init(x: $0, y: $0, label: "v") })
            _ = try SVGElements(plot.svg())
        }
        // A canvas of no size, or of a size that is not a number, draws too.
        for size in [0, -100, Double.nan, .infinity] {
            _ = try SVGElements(Plot(title: "t", xLabel: "x", yLabel: "y", series: [.init(name: "s", color: "#000", xs: Array(0..<10_000).map(Double.init), ys: Array(repeating: 1, count: 10_000))], width: size, height: size).svg())
        }
    }

    @Test("An annotation is a ring at its point with its label")
    func annotationsMarkAPoint() throws {
        let plot = Plot(
            title: "peak", xLabel: "x", yLabel: "y",
            series: [.init(name: "s", color: "#000", xs: [0, 1, 2], ys: [0, 0.6, -0.2])],
            annotations: [.init(x: 1, y: 0.6, label: "peak 0.600 g")])
        let document = try SVGElements(plot.svg())
        let renderer = SVGRenderer(plot: plot)
        let ring = try #require(document.all("circle").first { $0.attributes["fill"] == "none" })
        #expect(abs((ring.number("cx") ?? 0) - renderer.px(1)) < 0.01 && abs((ring.number("cy") ?? 0) - renderer.py(0.6)) < 0.01)
        #expect(document.all("text").contains { $0.text == "peak 0.600 g" })
    }
}
