/// A time-series plot described as values, drawn to SVG by `svg()`.
///
/// Kept free of any haptics knowledge so the pattern renderer, the chip model's
/// acceleration traces and the benchmarks can all draw through it.
public struct Plot: Sendable {
    /// A polyline through points in data coordinates.
    public struct Series: Sendable {
        public var name: String
        public var color: String
        public var xs: [Double]
        public var ys: [Double]
        public var strokeWidth: Double
        /// Shade the area between the line and zero (for amplitudes).
        public var filled: Bool

        public init(name: String, color: String, xs: [Double], ys: [Double], strokeWidth: Double = 1.6, filled: Bool = false) {
            precondition(xs.count == ys.count, "a series needs one y per x")
            self.name = name
            self.color = color
            self.xs = xs
            self.ys = ys
            self.strokeWidth = strokeWidth
            self.filled = filled
        }
    }

    /// A vertical stem from the baseline to `y`, with a dot on top: how impulses
    /// (haptic transients, I2C writes) are marked.
    public struct Impulse: Sendable {
        public var x: Double
        public var y: Double
        /// Shown on hover (SVG `<title>`), e.g. "t=120 ms intensity 0.8 sharpness 0.4".
        public var detail: String

        public init(x: Double, y: Double, detail: String = "") {
            self.x = x
            self.y = y
            self.detail = detail
        }
    }

    public struct ImpulseGroup: Sendable {
        public var name: String
        public var color: String
        public var impulses: [Impulse]

        public init(name: String, color: String, impulses: [Impulse]) {
            self.name = name
            self.color = color
            self.impulses = impulses
        }
    }

    public var title: String
    public var subtitle: String
    public var xLabel: String
    public var yLabel: String
    /// Fixed y range; nil fits the data (and always includes 0).
    public var yRange: ClosedRange<Double>?
    /// Fixed x range; nil fits the data.
    public var xRange: ClosedRange<Double>?
    public var series: [Series]
    public var impulseGroups: [ImpulseGroup]
    public var width: Double
    public var height: Double

    public init(
        title: String, subtitle: String = "", xLabel: String, yLabel: String,
        yRange: ClosedRange<Double>? = nil, xRange: ClosedRange<Double>? = nil,
        series: [Series] = [], impulseGroups: [ImpulseGroup] = [],
        width: Double = 960, height: Double = 420
    ) {
        self.title = title
        self.subtitle = subtitle
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.yRange = yRange
        self.xRange = xRange
        self.series = series
        self.impulseGroups = impulseGroups
        self.width = width
        self.height = height
    }

    /// Colours that stay distinguishable for colour-blind readers (Okabe–Ito).
    public enum Palette {
        public static let blue = "#0072B2"
        public static let orange = "#E69F00"
        public static let vermillion = "#D55E00"
        public static let green = "#009E73"
        public static let purple = "#CC79A7"
        public static let grey = "#555555"
    }
}
