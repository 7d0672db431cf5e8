import Foundation

extension Plot {
    /// The plot as a standalone SVG document: well-formed XML whatever its texts hold.
    public func svg() -> String {
        SVGRenderer(plot: self).render()
    }
}

struct SVGRenderer {
    let plot: Plot
    let left = 64.0, right = 24.0, top = 78.0, bottom = 52.0
    /// What the axes label: the plot's ranges, or the data's.
    let xData: ClosedRange<Double>
    let yData: ClosedRange<Double>
    /// What the frame spans: the data ranges with a margin on each side, so nothing
    /// drawn at the edge of the data (a transient at t = 0, an intensity of 1) lies on
    /// the frame itself.
    let xRange: ClosedRange<Double>
    let yRange: ClosedRange<Double>

    /// Fractions of the data span added on each side.
    static let xMargin = 0.02
    static let yHeadroom = 0.06
    /// Data beyond this magnitude is drawn at it: spans stay finite, pixels stay numbers.
    static let largestValue = 1e150

    init(plot: Plot) {
        self.plot = plot
        let xs = plot.series.flatMap(\.xs) + plot.impulseGroups.flatMap { $0.impulses.map(\.x) } + plot.annotations.map(\.x)
        let ys = plot.series.flatMap(\.ys) + plot.impulseGroups.flatMap { $0.impulses.flatMap { [$0.y, $0.marker ?? 0] } }
            + plot.annotations.map(\.y)
        xData = Self.widened(plot.xRange.map(Self.clamped) ?? Self.bounds(of: xs, including: nil))
        yData = Self.widened(plot.yRange.map(Self.clamped) ?? Self.bounds(of: ys, including: 0))
        xRange = Self.padded(xData, by: Self.xMargin)
        yRange = Self.padded(yData, by: Self.yHeadroom)
    }

    var plotWidth: Double { plot.width - left - right }
    var plotHeight: Double { plot.height - top - bottom }

    static func clamp(_ value: Double) -> Double { min(max(value, -largestValue), largestValue) }

    static func clamped(_ range: ClosedRange<Double>) -> ClosedRange<Double> {
        guard range.lowerBound.isFinite || range.upperBound.isFinite else { return 0...1 }
        return clamp(range.lowerBound)...clamp(range.upperBound)
    }

    static func bounds(of values: [Double], including anchor: Double?) -> ClosedRange<Double> {
        var low = anchor ?? .infinity, high = anchor ?? -.infinity
        for value in values where value.isFinite {
            low = min(low, clamp(value))
            high = max(high, clamp(value))
        }
        return low <= high ? low...high : 0...1
    }

    static func widened(_ range: ClosedRange<Double>) -> ClosedRange<Double> {
        range.upperBound > range.lowerBound ? range : (range.lowerBound - 0.5)...(range.lowerBound + 0.5)
    }

    static func padded(_ range: ClosedRange<Double>, by fraction: Double) -> ClosedRange<Double> {
        let pad = (range.upperBound - range.lowerBound) * fraction
        return (range.lowerBound - pad)...(range.upperBound + pad)
    }

    func px(_ x: Double) -> Double {
        left + (Self.clamp(x) - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * plotWidth
    }

    func py(_ y: Double) -> Double {
        top + plotHeight - (Self.clamp(y) - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound) * plotHeight
    }

    /// Where stems and fills start: 0 when the axis shows it, else the bottom of the data.
    var baseline: Double { py(yData.contains(0) ? 0 : yData.lowerBound) }

    func render() -> String {
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(fmt(plot.width))" height="\(fmt(plot.height))" \
            viewBox="0 0 \(fmt(plot.width)) \(fmt(plot.height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        out += "<text x=\"\(fmt(left))\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(xml(plot.title))</text>\n"
        if !plot.subtitle.isEmpty {
            // About 6.2 px per character at 12 px: cut what would run off the right edge.
            let fits = max(1, Self.whole((plot.width - left - right) / 6.2))
            let text = plot.subtitle.count > fits ? plot.subtitle.prefix(fits - 1) + "…" : plot.subtitle
            out += "<text x=\"\(fmt(left))\" y=\"40\" fill=\"#555\">\(xml(text))</text>\n"
        }
        out += axes()
        out += "<g clip-path=\"url(#plotArea)\">\n"
        for group in plot.impulseGroups { out += impulses(group) }
        for series in plot.series { out += line(series) }
        out += "</g>\n"
        for annotation in plot.annotations { out += self.annotation(annotation) }
        out += legend()
        out += "</svg>\n"
        return out
    }

    func axes() -> String {
        var out = """
            <defs><clipPath id="plotArea"><rect x="\(fmt(left))" y="\(fmt(top))" \
            width="\(fmt(plotWidth))" height="\(fmt(plotHeight))"/></clipPath></defs>

            """
        let xStep = Ticks.niceStep(span: xData.upperBound - xData.lowerBound, targetCount: 10)
        for x in Ticks.values(in: xData, targetCount: 10) {
            let p = px(x)
            out += "<line x1=\"\(fmt(p))\" y1=\"\(fmt(top))\" x2=\"\(fmt(p))\" y2=\"\(fmt(top + plotHeight))\" stroke=\"#e4e4e4\"/>\n"
            out += "<text x=\"\(fmt(p))\" y=\"\(fmt(top + plotHeight + 16))\" text-anchor=\"middle\">\(Ticks.label(x, step: xStep))</text>\n"
        }
        let yStep = Ticks.niceStep(span: yData.upperBound - yData.lowerBound, targetCount: 5)
        for y in Ticks.values(in: yData, targetCount: 5) {
            let p = py(y)
            out += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(p))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(p))\" stroke=\"#e4e4e4\"/>\n"
            out += "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(p + 4))\" text-anchor=\"end\">\(Ticks.label(y, step: yStep))</text>\n"
        }
        out += "<rect x=\"\(fmt(left))\" y=\"\(fmt(top))\" width=\"\(fmt(plotWidth))\" height=\"\(fmt(plotHeight))\" fill=\"none\" stroke=\"#888\"/>\n"
        if yData.contains(0) {
            out += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(py(0)))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(py(0)))\" stroke=\"#888\"/>\n"
        }
        out += "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(plot.height - 12))\" text-anchor=\"middle\">\(xml(plot.xLabel))</text>\n"
        out += "<text transform=\"translate(16 \(fmt(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(xml(plot.yLabel))</text>\n"
        return out
    }

    /// One `<path>` per series: a subpath per run of finite points (gaps break it), a
    /// shaded area under each run when the series is filled.
    func line(_ series: Plot.Series) -> String {
        let runs = Self.finiteRuns(series).map(decimated)
        guard !runs.isEmpty else { return "" }
        var stroke = "", fill = ""
        for run in runs {
            let points = run.map { "\(fmt(px($0.0))),\(fmt(py($0.1)))" }
            guard let first = run.first, let last = run.last, let start = points.first else { continue }
            // A lone point is a zero-length segment: its round cap draws it as a dot.
            stroke += "M\(start) L\(points.count > 1 ? points.dropFirst().joined(separator: " ") : start) "
            if series.filled {
                fill += "M\(fmt(px(first.0))),\(fmt(baseline)) L\(points.joined(separator: " ")) \(fmt(px(last.0))),\(fmt(baseline)) Z "
            }
        }
        var out = ""
        if series.filled {
            out += "<path fill=\"\(xml(series.color))\" fill-opacity=\"0.15\" stroke=\"none\" d=\"\(fill)\"/>\n"
        }
        return out + "<path fill=\"none\" stroke=\"\(xml(series.color))\" stroke-width=\"\(fmt(series.strokeWidth))\" "
            + "stroke-linejoin=\"round\" stroke-linecap=\"round\" d=\"\(stroke)\"><title>\(xml(series.name))</title></path>\n"
    }

    /// The series' points split where x or y is not finite.
    static func finiteRuns(_ series: Plot.Series) -> [[(Double, Double)]] {
        var runs: [[(Double, Double)]] = []
        var run: [(Double, Double)] = []
        for (x, y) in zip(series.xs, series.ys) {
            if x.isFinite, y.isFinite {
                run.append((x, y))
            } else if !run.isEmpty {
                runs.append(run)
                run = []
            }
        }
        if !run.isEmpty { runs.append(run) }
        return runs
    }

    /// The pixel column a finite x falls in, clamped just outside the frame.
    func column(_ x: Double) -> Int { Self.whole(min(max(px(x), left - 1), left + plotWidth + 1)) }

    /// A pixel count or position as an integer, whatever the Double: the canvas size
    /// is the caller's, and no value may trap the conversion.
    static func whole(_ value: Double) -> Int { value.isFinite ? Int(min(max(value, -1e9), 1e9)) : 0 }

    /// Keeps the first, minimum, maximum and last point of each pixel column, so a
    /// 30 s trace sampled at 8 kHz stays a small file and still shows every peak.
    func decimated(_ points: [(Double, Double)]) -> [(Double, Double)] {
        let columns = Self.whole(plotWidth)
        guard columns > 0, points.count > columns * 4 else { return points }
        var out: [(Double, Double)] = []
        out.reserveCapacity(columns * 4)
        var index = 0
        while index < points.count {
            let here = column(points[index].0)
            var minIndex = index, maxIndex = index, end = index
            while end + 1 < points.count, column(points[end + 1].0) == here {
                end += 1
                if points[end].1 < points[minIndex].1 { minIndex = end }
                if points[end].1 > points[maxIndex].1 { maxIndex = end }
            }
            for i in Set([index, minIndex, maxIndex, end]).sorted() { out.append(points[i]) }
            index = end + 1
        }
        return out
    }

    func impulses(_ group: Plot.ImpulseGroup) -> String {
        var out = "<g stroke=\"\(xml(group.color))\" fill=\"\(xml(group.color))\">\n"
        for impulse in group.impulses where impulse.x.isFinite && impulse.y.isFinite {
            let x = px(impulse.x), y = py(impulse.y)
            out += "<g><title>\(xml(impulse.detail))</title>"
            out += "<line x1=\"\(fmt(x))\" y1=\"\(fmt(baseline))\" x2=\"\(fmt(x))\" y2=\"\(fmt(y))\" stroke-width=\"2\"/>"
            out += "<circle cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"3.5\"/>"
            if let marker = impulse.marker, marker.isFinite, let key = group.marker {
                out += diamond(x: x, y: py(marker), color: key.color)
            }
            out += "</g>\n"
        }
        return out + "</g>\n"
    }

    func diamond(x: Double, y: Double, color: String) -> String {
        "<path d=\"M\(fmt(x)),\(fmt(y - 5)) L\(fmt(x + 5)),\(fmt(y)) \(fmt(x)),\(fmt(y + 5)) \(fmt(x - 5)),\(fmt(y)) Z\" "
            + "fill=\"\(xml(color))\" stroke=\"white\" stroke-width=\"1\"/>"
    }

    func annotation(_ a: Plot.Annotation) -> String {
        guard a.x.isFinite, a.y.isFinite else { return "" }
        let x = px(a.x), y = py(a.y)
        // The label reads away from the nearer side edge and from the frame's top.
        let toLeft = x > left + plotWidth * 0.7
        let ty = y < top + 16 ? y + 16 : y - 8
        return "<circle cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"5\" fill=\"none\" stroke=\"\(xml(a.color))\" stroke-width=\"1.5\"/>"
            + "<text x=\"\(fmt(toLeft ? x - 8 : x + 8))\" y=\"\(fmt(ty))\" text-anchor=\"\(toLeft ? "end" : "start")\" "
            + "fill=\"\(xml(a.color))\">\(xml(a.label))</text>\n"
    }

    func legend() -> String {
        enum Symbol { case line, stem, diamond }
        var entries = plot.series.map { ($0.name, $0.color, Symbol.line) }
        for group in plot.impulseGroups {
            entries.append((group.name, group.color, .stem))
            if let key = group.marker { entries.append((key.name, key.color, .diamond)) }
        }
        guard !entries.isEmpty else { return "" }
        var out = ""
        var x = plot.width - right
        for (name, color, symbol) in entries.reversed() {
            let textWidth = Double(name.count) * 6.6
            x -= textWidth + 30
            let y = top - 12
            switch symbol {
            case .stem:
                out += "<line x1=\"\(fmt(x + 9))\" y1=\"\(fmt(y + 5))\" x2=\"\(fmt(x + 9))\" y2=\"\(fmt(y - 7))\" stroke=\"\(xml(color))\" stroke-width=\"2\"/>"
                out += "<circle cx=\"\(fmt(x + 9))\" cy=\"\(fmt(y - 7))\" r=\"3.5\" fill=\"\(xml(color))\"/>\n"
            case .diamond:
                out += diamond(x: x + 9, y: y - 4, color: color) + "\n"
            case .line:
                out += "<line x1=\"\(fmt(x))\" y1=\"\(fmt(y - 4))\" x2=\"\(fmt(x + 18))\" y2=\"\(fmt(y - 4))\" stroke=\"\(xml(color))\" stroke-width=\"3\"/>\n"
            }
            out += "<text x=\"\(fmt(x + 24))\" y=\"\(fmt(y))\">\(xml(name))</text>\n"
        }
        return out
    }

    /// Pixel coordinates to two decimals. Anything far outside the canvas is drawn at
    /// a far edge (clipped away anyway), so the conversion to an integer cannot trap.
    func fmt(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (min(max(value, -1e7), 1e7) * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Self.whole(rounded)) : String(rounded)
    }

    /// Text and attribute values as XML 1.0 character data: markup characters escaped,
    /// and every character XML 1.0 forbids (C0 controls but tab, newline and carriage
    /// return; U+FFFE, U+FFFF) or asks documents to avoid (DEL and the C1 controls,
    /// the noncharacters) replaced by U+FFFD, so the document stays well-formed
    /// whatever a pattern's metadata or a file name holds.
    func xml(_ text: String) -> String { XMLText.escaped(text) }
}

enum XMLText {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(isAllowed(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return out
    }

    /// XML 1.0 §2.2 `Char`, less the characters it discourages.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        switch v {
        case 0x9, 0xA, 0xD: return true
        case 0x00...0x1F, 0x7F...0x84, 0x86...0x9F, 0xFDD0...0xFDEF: return false
        default: return v & 0xFFFE != 0xFFFE  // U+FFFE/U+FFFF of every plane
        }
    }
}
