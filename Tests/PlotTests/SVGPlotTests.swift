import Testing
@testable import Plot

@Suite struct SVGPlotTests {
    @Test func svgHasTitleAxisLabelsLegendAndOnePathPerSeries() throws {
        let plot = Plot(
            title: "SOS & co", xLabel: "time (ms)", yLabel: "value",
            series: [
                .init(name: "intensity", color: Plot.Palette.blue, xs: [0, 10, 20], ys: [0, 1, 0]),
                .init(name: "sharpness", color: Plot.Palette.orange, xs: [0, 20], ys: [0.5, 0.5]),
            ],
            impulseGroups: [.init(name: "transient", color: Plot.Palette.vermillion,
                                  impulses: [.init(x: 5, y: 0.8, detail: "t=5 ms")])])
        let svg = plot.svg()
        let document = try SVGElements(svg)
        #expect(svg.hasPrefix("<svg"))
        #expect(document.all("text").contains { $0.text == "SOS & co" })
        #expect(document.all("text").contains { $0.text == "time (ms)" })
        #expect(document.all("path").filter { $0.attributes["fill"] == "none" }.count == 2)
        #expect(document.all("circle").count == 2)  // the stem's dot and the legend's
        #expect(document.all("text").contains { $0.text == "transient" })
    }

    @Test func niceTicksUseOneTwoFiveSteps() {
        #expect(Ticks.niceStep(span: 1000, targetCount: 10) == 100)
        #expect(Ticks.niceStep(span: 3000, targetCount: 10) == 500)
        #expect(Ticks.niceStep(span: 1.7, targetCount: 10) == 0.2)
        #expect(Ticks.values(in: 0...1, targetCount: 5) == [0, 0.2, 0.4, 0.6, 0.8, 1.0])
    }

    @Test func longSeriesAreDecimatedButKeepTheirPeaks() throws {
        let n = 100_000
        let xs = (0..<n).map(Double.init)
        var ys = [Double](repeating: 0, count: n)
        ys[54_321] = 7
        let svg = Plot(title: "t", xLabel: "x", yLabel: "y",
                       series: [.init(name: "s", color: "#000", xs: xs, ys: ys)]).svg()
        #expect(svg.utf8.count < 200_000)
        // The single spike survives decimation: its top is the highest point drawn.
        let renderer = SVGRenderer(plot: Plot(title: "t", xLabel: "x", yLabel: "y", series: [.init(name: "s", color: "#000", xs: xs, ys: ys)]))
        let line = try #require(try SVGElements(svg).all("path").first { $0.attributes["fill"] == "none" })
        let top = try #require(SVGElements.subpaths(line.attributes["d"] ?? "").joined().map(\.y).min())
        #expect(abs(top - renderer.py(7)) < 0.01)
    }
}
