import Bench
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
    static func peakText(_ g: Double) -> String { AccelerationTrace.peakText(g) }

    /// The largest |a| and where it is, or nil when nothing was recorded.
    static func peak(timesMs: [Double], g: [Double]) -> (time: Double, g: Double)? {
        guard let i = g.indices.max(by: { abs(g[$0]) < abs(g[$1]) }), i < timesMs.count else { return nil }
        return (timesMs[i], g[i])
    }

    /// `timesMs` from the first sample; `drive` already on the same time axis; `source`
    /// where the acceleration came from, as `AccelerationProvenance.text` says it.
    /// `holes`: where a sensor lost samples, on the same time axis (ms) with how many:
    /// the line breaks there and a marker says how many are missing, so no one reads a
    /// straight line across a hole as the motion.
    static func plot(
        timesMs: [Double], g: [Double], source: String = "model (simulated sled)", drive: (name: String, xs: [Double], ys: [Double])? = nil,
        holes: [(startMs: Double, endMs: Double, count: Int)] = [], title: String, subtitle: String
    ) -> Plot {
        var (xs, ys) = envelope(timesMs, g, buckets: envelopeBuckets)
        // A NaN is a gap in a series (Plot.Series): one where each hole begins.
        for hole in holes.reversed() {
            let i = xs.firstIndex { $0 >= hole.startMs } ?? xs.count
            xs.insert(hole.startMs, at: i)
            ys.insert(.nan, at: i)
        }
        var series = [Plot.Series(name: "acceleration: \(source)", color: Plot.Palette.blue, xs: xs, ys: ys)]
        if let drive { series.append(Plot.Series(name: drive.name, color: Plot.Palette.orange, xs: drive.xs, ys: drive.ys, strokeWidth: 1.2)) }
        var annotations = peak(timesMs: timesMs, g: g).map { [Plot.Annotation(x: $0.time, y: $0.g, label: "peak " + peakText(abs($0.g)))] } ?? []
        annotations += holes.map {
            Plot.Annotation(x: ($0.startMs + $0.endMs) / 2, y: 0, label: "\($0.count) sample\($0.count == 1 ? "" : "s") lost", color: Plot.Palette.vermillion)
        }
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

extension PlayTrace {
    /// Acceleration and the drive as a step trace scaled to the acceleration's peak, to
    /// read them together; without acceleration, the drive alone as a fraction of full scale.
    func plot(title: String, subtitle: String) -> Plot {
        let samples = self.samples ?? []
        // The source in the title too: a figure read off the plot says where it came from.
        let subtitle = provenance.map { "\(subtitle); acceleration: \($0.text)" } ?? subtitle
        guard let t0 = samples.first?.boardMicroseconds ?? drive.first?.time else {
            return AccelerationPlot.plot(timesMs: [], g: [], title: title, subtitle: subtitle + " (nothing recorded)")
        }
        let times = samples.map { Double($0.boardMicroseconds &- t0) / 1000 }
        let scale = samples.isEmpty ? 1 : max(0.001, peakG)
        var dx: [Double] = [], dy: [Double] = []
        var last = 0.0
        for (t, a) in drive where t >= t0 {
            let x = Double(t - t0) / 1000
            dx.append(x)
            dy.append(last)
            last = Double(a) / 127 * scale
            dx.append(x)
            dy.append(last)
        }
        if let end = times.last ?? dx.last {
            dx.append(end)
            dy.append(last)
        }
        let name = samples.isEmpty ? "RTP drive (fraction of full scale; no acceleration measured)" : "RTP drive (scaled to the peak)"
        let holes = losses.map { (startMs: ($0.firstMissingMicroseconds - Double(t0)) / 1000, endMs: ($0.endMicroseconds - Double(t0)) / 1000, count: $0.count) }
        return AccelerationPlot.plot(
            timesMs: times, g: samples.map(\.g), source: provenance?.text ?? "none", drive: (name: name, xs: dx, ys: dy), holes: holes,
            title: title, subtitle: subtitle)
    }
}
