import Foundation

extension Plot {
    /// The plot as a standalone SVG document.
    public func svg() -> String {
        SVGRenderer(plot: self).render()
    }
}

private struct SVGRenderer {
    let plot: Plot
    let left = 64.0, right = 24.0, top = 78.0, bottom = 52.0
    // Computed once: every point's pixel position depends on them.
    let xRange: ClosedRange<Double>
    let yRange: ClosedRange<Double>

    init(plot: Plot) {
        self.plot = plot
        let xs = plot.series.flatMap(\.xs) + plot.impulseGroups.flatMap { $0.impulses.map(\.x) }
        let ys = plot.series.flatMap(\.ys) + plot.impulseGroups.flatMap { $0.impulses.map(\.y) }
        xRange = Self.widened(plot.xRange ?? Self.bounds(of: xs, including: nil))
        yRange = Self.widened(plot.yRange ?? Self.bounds(of: ys, including: 0))
    }

    var plotWidth: Double { plot.width - left - right }
    var plotHeight: Double { plot.height - top - bottom }

    static func bounds(of values: [Double], including anchor: Double?) -> ClosedRange<Double> {
        var low = anchor ?? .infinity, high = anchor ?? -.infinity
        for value in values where value.isFinite {
            low = min(low, value)
            high = max(high, value)
        }
        return low <= high ? low...high : 0...1
    }

    static func widened(_ range: ClosedRange<Double>) -> ClosedRange<Double> {
        range.upperBound > range.lowerBound ? range : (range.lowerBound - 0.5)...(range.lowerBound + 0.5)
    }

    func px(_ x: Double) -> Double {
        let r = xRange
        return left + (x - r.lowerBound) / (r.upperBound - r.lowerBound) * plotWidth
    }

    func py(_ y: Double) -> Double {
        let r = yRange
        let clamped = min(max(y, r.lowerBound), r.upperBound)
        return top + plotHeight - (clamped - r.lowerBound) / (r.upperBound - r.lowerBound) * plotHeight
    }

    func render() -> String {
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(fmt(plot.width))" height="\(fmt(plot.height))" \
            viewBox="0 0 \(fmt(plot.width)) \(fmt(plot.height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        out += "<text x=\"\(fmt(left))\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(escape(plot.title))</text>\n"
        if !plot.subtitle.isEmpty {
            // About 6.2 px per character at 12 px: cut what would run off the right edge.
            let fits = Int((plot.width - left - right) / 6.2)
            let text = plot.subtitle.count > fits ? plot.subtitle.prefix(fits - 1) + "…" : plot.subtitle
            out += "<text x=\"\(fmt(left))\" y=\"40\" fill=\"#555\">\(escape(text))</text>\n"
        }
        out += axes()
        out += "<g clip-path=\"url(#plotArea)\">\n"
        for group in plot.impulseGroups { out += impulses(group) }
        for series in plot.series { out += polyline(series) }
        out += "</g>\n"
        out += legend()
        out += "</svg>\n"
        return out
    }

    func axes() -> String {
        var out = """
            <defs><clipPath id="plotArea"><rect x="\(fmt(left))" y="\(fmt(top - 4))" \
            width="\(fmt(plotWidth))" height="\(fmt(plotHeight + 8))"/></clipPath></defs>

            """
        let xr = xRange, yr = yRange
        let xStep = Ticks.niceStep(span: xr.upperBound - xr.lowerBound, targetCount: 10)
        for x in Ticks.values(in: xr, targetCount: 10) {
            let p = px(x)
            out += "<line x1=\"\(fmt(p))\" y1=\"\(fmt(top))\" x2=\"\(fmt(p))\" y2=\"\(fmt(top + plotHeight))\" stroke=\"#e4e4e4\"/>\n"
            out += "<text x=\"\(fmt(p))\" y=\"\(fmt(top + plotHeight + 16))\" text-anchor=\"middle\">\(Ticks.label(x, step: xStep))</text>\n"
        }
        let yStep = Ticks.niceStep(span: yr.upperBound - yr.lowerBound, targetCount: 5)
        for y in Ticks.values(in: yr, targetCount: 5) {
            let p = py(y)
            out += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(p))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(p))\" stroke=\"#e4e4e4\"/>\n"
            out += "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(p + 4))\" text-anchor=\"end\">\(Ticks.label(y, step: yStep))</text>\n"
        }
        out += "<rect x=\"\(fmt(left))\" y=\"\(fmt(top))\" width=\"\(fmt(plotWidth))\" height=\"\(fmt(plotHeight))\" fill=\"none\" stroke=\"#888\"/>\n"
        if yr.contains(0) {
            out += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(py(0)))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(py(0)))\" stroke=\"#888\"/>\n"
        }
        out += "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(plot.height - 12))\" text-anchor=\"middle\">\(escape(plot.xLabel))</text>\n"
        out += "<text transform=\"translate(16 \(fmt(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(plot.yLabel))</text>\n"
        return out
    }

    func polyline(_ series: Plot.Series) -> String {
        guard !series.xs.isEmpty else { return "" }
        var points = ""
        points.reserveCapacity(series.xs.count * 14)
        let kept = decimated(series)
        for (x, y) in kept {
            points += "\(fmt(px(x))),\(fmt(py(y))) "
        }
        var out = ""
        if series.filled, let first = kept.first, let last = kept.last {
            let base = fmt(py(max(yRange.lowerBound, 0)))
            out += "<polygon fill=\"\(series.color)\" fill-opacity=\"0.15\" stroke=\"none\" "
                + "points=\"\(fmt(px(first.0))),\(base) \(points)\(fmt(px(last.0))),\(base)\"/>\n"
        }
        return out + "<polyline fill=\"none\" stroke=\"\(series.color)\" stroke-width=\"\(fmt(series.strokeWidth))\" "
            + "stroke-linejoin=\"round\" points=\"\(points)\"><title>\(escape(series.name))</title></polyline>\n"
    }

    /// Keeps the first, minimum, maximum and last point of each pixel column, so a
    /// 30 s trace sampled at 8 kHz stays a small file and still shows every peak.
    func decimated(_ series: Plot.Series) -> [(Double, Double)] {
        let columns = Int(plotWidth)
        guard series.xs.count > columns * 4 else { return Array(zip(series.xs, series.ys)) }
        var out: [(Double, Double)] = []
        out.reserveCapacity(columns * 4)
        var index = 0
        while index < series.xs.count {
            let column = Int(px(series.xs[index]))
            var minIndex = index, maxIndex = index, end = index
            while end + 1 < series.xs.count, Int(px(series.xs[end + 1])) == column {
                end += 1
                if series.ys[end] < series.ys[minIndex] { minIndex = end }
                if series.ys[end] > series.ys[maxIndex] { maxIndex = end }
            }
            for i in Set([index, minIndex, maxIndex, end]).sorted() {
                out.append((series.xs[i], series.ys[i]))
            }
            index = end + 1
        }
        return out
    }

    func impulses(_ group: Plot.ImpulseGroup) -> String {
        var out = "<g stroke=\"\(group.color)\" fill=\"\(group.color)\">\n"
        for impulse in group.impulses {
            let x = px(impulse.x), y = py(impulse.y), base = py(max(yRange.lowerBound, 0))
            out += "<g><title>\(escape(impulse.detail))</title>"
            out += "<line x1=\"\(fmt(x))\" y1=\"\(fmt(base))\" x2=\"\(fmt(x))\" y2=\"\(fmt(y))\" stroke-width=\"2\"/>"
            out += "<circle cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"3.5\"/></g>\n"
        }
        return out + "</g>\n"
    }

    func legend() -> String {
        let entries = plot.series.map { ($0.name, $0.color, false) }
            + plot.impulseGroups.map { ($0.name, $0.color, true) }
        guard !entries.isEmpty else { return "" }
        var out = ""
        var x = plot.width - right
        for (name, color, isImpulse) in entries.reversed() {
            let textWidth = Double(name.count) * 6.6
            x -= textWidth + 30
            let y = top - 12
            if isImpulse {
                out += "<line x1=\"\(fmt(x + 9))\" y1=\"\(fmt(y + 5))\" x2=\"\(fmt(x + 9))\" y2=\"\(fmt(y - 7))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
                out += "<circle cx=\"\(fmt(x + 9))\" cy=\"\(fmt(y - 7))\" r=\"3.5\" fill=\"\(color)\"/>\n"
            } else {
                out += "<line x1=\"\(fmt(x))\" y1=\"\(fmt(y - 4))\" x2=\"\(fmt(x + 18))\" y2=\"\(fmt(y - 4))\" stroke=\"\(color)\" stroke-width=\"3\"/>\n"
            }
            out += "<text x=\"\(fmt(x + 24))\" y=\"\(fmt(y))\">\(escape(name))</text>\n"
        }
        return out
    }

    func fmt(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
