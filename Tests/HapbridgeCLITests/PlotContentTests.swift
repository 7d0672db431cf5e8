import Foundation
import FoundationXML
import Haptics
import Plot
import Testing

@testable import HapbridgeCLI

/// What the CLI puts in its plots (how Plot draws it is PlotTests' part).
@Suite struct PlotContentTests {
    func source(_ document: String, label: String = "test.ahap") throws -> PatternSource {
        PatternSource(label: label, loaded: try AHAPReader.read(Array(document.utf8)))
    }

    func timeline(_ source: PatternSource) throws -> Timeline {
        try Renderer.render(source.loaded.pattern, options: RenderOptions(sampleRate: 1000, playbackRate: 1))
    }

    @Test("render's sharpness is a gap where nothing plays, not a line along 0")
    func sharpnessBreaksWhereNothingPlays() throws {
        let s = try source(Patterns.document([Patterns.continuous(at: 0, duration: 0.1, sharpness: 0.7), Patterns.continuous(at: 0.3, duration: 0.1, sharpness: 0.2)]))
        let t = try timeline(s)
        let plot = TimelineExport.plot(t, source: s)
        let sharpness = try #require(plot.series.first { $0.name == "sharpness" })
        for (intensity, shown) in zip(t.intensity, sharpness.ys) {
            #expect(intensity > 0 ? shown.isFinite : shown.isNaN)
        }
        #expect(sharpness.ys.contains { $0.isNaN })
        #expect(sharpness.ys.contains { abs($0 - 0.7) < 1e-9 } && sharpness.ys.contains { abs($0 - 0.2) < 1e-9 })
    }

    @Test("Each transient carries its sharpness as the stem's marker, named in the legend")
    func transientSharpnessIsAMarker() throws {
        let s = try source(Patterns.document([Patterns.transient(at: 0, intensity: 0.9, sharpness: 0.1), Patterns.transient(at: 0.05, intensity: 0.4, sharpness: 0.8)]))
        let plot = TimelineExport.plot(try timeline(s), source: s)
        let group = try #require(plot.impulseGroups.first)
        #expect(group.impulses.map(\.y) == [0.9, 0.4])
        #expect(group.impulses.map(\.marker) == [0.1, 0.8])
        #expect(group.marker?.name == "transient sharpness")
    }

    @Test("Counts in the subtitle agree in number: 1 audio event, 2 audio events")
    func pluralsAreRight() throws {
        for count in [1, 2] {
            let s = try source(Patterns.document(Array(repeating: Patterns.audio, count: count) + [Patterns.transient(at: 0)]))
            let subtitle = TimelineExport.plot(try timeline(s), source: s).subtitle
            #expect(subtitle.hasPrefix("1 haptic event, 1 transient, "))
            #expect(subtitle.contains(count == 1 ? ", 1 audio event not shown" : ", 2 audio events not shown"))
        }
        #expect(plural(1, "buzz", "buzzes") == "1 buzz" && plural(3, "buzz", "buzzes") == "3 buzzes" && plural(0, "tap") == "0 taps")
    }

    @Test("The acceleration plot marks the largest |a| with the figure the report prints")
    func peakIsMarkedAsReported() throws {
        let times = (0..<100_000).map { Double($0) / 10 }
        var g = times.map { 0.3 * sin($0) }
        g[77_777] = -0.912_345
        let plot = AccelerationPlot.plot(timesMs: times, g: g, title: "t", subtitle: "s")
        let peak = try #require(plot.annotations.first)
        #expect(peak.label == "peak " + AccelerationPlot.peakText(0.912_345) && peak.label == "peak 0.912 g")
        #expect(peak.x == times[77_777] && peak.y == -0.912_345)
        // The envelope that reaches the SVG keeps that sample.
        let drawn = try #require(plot.series.first)
        #expect(drawn.ys.count <= 2 * AccelerationPlot.envelopeBuckets && drawn.ys.contains(-0.912_345))
    }

    @Test("play --plot is well-formed SVG whose peak label is the peak play reports")
    func playPlotPeakMatchesTheReport() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("play.svg").path
        let run = try Hapbridge.run(["play", Hapbridge.path("Examples/Beethoven5.ahap"), "--plot", svg])
        #expect(run.status == 0, "\(run.err)")
        let line = try #require(run.out.split(separator: "\n").first { $0.hasPrefix("peak acceleration: ") })
        let figure = try #require(line.split(separator: " ").dropFirst(2).first)  // "0.383"
        let document = try Data(contentsOf: URL(fileURLWithPath: svg))
        #expect(XMLParser(data: document).parse())
        #expect(String(decoding: document, as: UTF8.self).contains(">peak \(figure) g</text>"))
    }
}
