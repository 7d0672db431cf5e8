import Testing
@testable import Plot

@Suite struct SVGPlotTests {
    @Test func svgHasTitleAxisLabelsLegendAndOnePolylinePerSeries() {
        let plot = Plot(
            title: "SOS & co", xLabel: "time (ms)", yLabel: "value",
            series: [
                .init(name: "intensity", color: Plot.Palette.blue, xs: [0, 10, 20], ys: [0, 1, 0]),
                .init(name: "sharpness", color: Plot.Palette.orange, xs: [0, 20], ys: [0.5, 0.5]),
            ],
            impulseGroups: [.init(name: "transient", color: Plot.Palette.vermillion,
                                  impulses: [.init(x: 5, y: 0.8, detail: "t=5 ms")])])
        let svg = plot.svg()
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.contains("SOS &amp; co"))
        #expect(svg.contains("time (ms)"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(svg.contains("<circle"))
        #expect(svg.contains(">transient</text>"))
    }

    @Test func niceTicksUseOneTwoFiveSteps() {
        #expect(Ticks.niceStep(span: 1000, targetCount: 10) == 100)
        #expect(Ticks.niceStep(span: 3000, targetCount: 10) == 500)
        #expect(Ticks.niceStep(span: 1.7, targetCount: 10) == 0.2)
        #expect(Ticks.values(in: 0...1, targetCount: 5) == [0, 0.2, 0.4, 0.6, 0.8, 1.0])
    }

    @Test func longSeriesAreDecimatedButKeepTheirPeaks() {
        let n = 100_000
        let xs = (0..<n).map(Double.init)
        var ys = [Double](repeating: 0, count: n)
        ys[54_321] = 7
        let svg = Plot(title: "t", xLabel: "x", yLabel: "y",
                       series: [.init(name: "s", color: "#000", xs: xs, ys: ys)]).svg()
        #expect(svg.utf8.count < 200_000)
        // The single spike survives decimation: its top sits on the plot's top edge.
        #expect(svg.contains(",78 "))
    }
}
