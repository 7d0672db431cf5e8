import Foundation
import Plot

/// The acceleration plot every command that drives an actuator writes with `--plot`
/// (`play`, `calibrate`, `diagnose`, `rom`): the simulated or measured acceleration
/// over time, optionally the drive beside it, and the peak marked with the very
/// figure the command's report prints.
enum AccelerationPlot {
    /// At most this many buckets of the envelope (two points each) reach the plot.
    static let envelopeBuckets = 2500

    /// "0.586 g": the peak as reports print it and the plot labels it.
    static func peakText(_ g: Double) -> String { format(g, 3) + " g" }

    /// The largest |a| and where it is, or nil when nothing was recorded.
    static func peak(timesMs: [Double], g: [Double]) -> (time: Double, g: Double)? {
        guard let i = g.indices.max(by: { abs(g[$0]) < abs(g[$1]) }), i < timesMs.count else { return nil }
        return (timesMs[i], g[i])
    }

    /// `timesMs` from the first sample; `drive` already on the same time axis.
    static func plot(
        timesMs: [Double], g: [Double], source: String = "simulated sled", drive: (name: String, xs: [Double], ys: [Double])? = nil,
        title: String, subtitle: String
    ) -> Plot {
        let (xs, ys) = envelope(timesMs, g, buckets: envelopeBuckets)
        var series = [Plot.Series(name: "acceleration (\(source))", color: Plot.Palette.blue, xs: xs, ys: ys)]
        if let drive { series.append(Plot.Series(name: drive.name, color: Plot.Palette.orange, xs: drive.xs, ys: drive.ys, strokeWidth: 1.2)) }
        let annotations = peak(timesMs: timesMs, g: g).map { [Plot.Annotation(x: $0.time, y: $0.g, label: "peak " + peakText(abs($0.g)))] } ?? []
        return Plot(
            title: title, subtitle: subtitle, xLabel: "time (ms)", yLabel: "acceleration (g)",
            series: series, annotations: annotations)
    }

    /// At most two samples per bucket, the lowest and the highest in time order: the
    /// plot keeps the vibration's envelope and every peak, and the SVG gets thousands
    /// of points instead of 10 kHz × the pattern.
    static func envelope(_ xs: [Double], _ ys: [Double], buckets: Int) -> ([Double], [Double]) {
        let count = min(xs.count, ys.count)
        guard count > 2 * buckets else { return (Array(xs.prefix(count)), Array(ys.prefix(count))) }
        let size = (count + buckets - 1) / buckets
        var outX: [Double] = [], outY: [Double] = []
        outX.reserveCapacity(2 * buckets)
        outY.reserveCapacity(2 * buckets)
        var start = 0
        while start < count {
            let chunk = start..<min(count, start + size)
            guard let lo = chunk.min(by: { ys[$0] < ys[$1] }), let hi = chunk.max(by: { ys[$0] < ys[$1] }) else { break }
            for i in lo <= hi ? [lo, hi] : [hi, lo] {
                outX.append(xs[i])
                outY.append(ys[i])
            }
            start += size
        }
        return (outX, outY)
    }
}
