/// A time-series plot described as values, drawn to SVG by `svg()`.
///
/// Kept free of any haptics knowledge so the pattern renderer, the chip model's
/// acceleration traces and the benchmarks can all draw through it.
public struct Plot: Sendable {
    /// A line through points in data coordinates. A non-finite y (NaN) is a gap: the
    /// line stops there and starts again at the next finite point, so a value that
    /// does not exist (sharpness where nothing plays) is not drawn as 0.
    public struct Series: Sendable {
        public var name: String
        public var color: String
        public var xs: [Double]
        public var ys: [Double]
        public var strokeWidth: Double
        /// Shade the area between the line and zero (for amplitudes).
        public var filled: Bool

        /// Points pair `xs[i]` with `ys[i]`; the longer array's extra values are not drawn.
        public init(name: String, color: String, xs: [Double], ys: [Double], strokeWidth: Double = 1.6, filled: Bool = false) {
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
        /// A second value of the same impulse, drawn as a diamond on the stem's line
        /// in the group's `marker` colour (a transient's sharpness beside its intensity),
        /// so it reads without hovering.
        public var marker: Double?
        /// Shown on hover (SVG `<title>`), e.g. "t=120 ms intensity 0.8 sharpness 0.4".
        public var detail: String

        public init(x: Double, y: Double, marker: Double? = nil, detail: String = "") {
            self.x = x
            self.y = y
            self.marker = marker
            self.detail = detail
        }
    }

    public struct ImpulseGroup: Sendable {
        public var name: String
        public var color: String
        public var impulses: [Impulse]
        /// What the impulses' `marker` values are, for the legend, and their colour.
        public var marker: (name: String, color: String)?

        public init(name: String, color: String, impulses: [Impulse], marker: (name: String, color: String)? = nil) {
            self.name = name
            self.color = color
            self.impulses = impulses
            self.marker = marker
        }
    }

    /// A labelled point (a peak), drawn as a ring with its label beside it.
    public struct Annotation: Sendable {
        public var x: Double
        public var y: Double
        public var label: String
        public var color: String

        public init(x: Double, y: Double, label: String, color: String = Palette.grey) {
            self.x = x
            self.y = y
            self.label = label
            self.color = color
        }
    }

    public var title: String
    public var subtitle: String
    public var xLabel: String
    public var yLabel: String
    /// The y values the axis must show (ticks cover it); nil fits the data and 0.
    /// The frame adds headroom on both sides, so a trace at the range's edge (an
    /// intensity of 1) never runs along the frame.
    public var yRange: ClosedRange<Double>?
    /// The x values the axis must show; nil fits the data. The frame adds a margin on
    /// both sides, so an impulse at either end (a transient at t = 0) stands inside.
    public var xRange: ClosedRange<Double>?
    public var series: [Series]
    public var impulseGroups: [ImpulseGroup]
    public var annotations: [Annotation]
    public var width: Double
    public var height: Double

    public init(
        title: String, subtitle: String = "", xLabel: String, yLabel: String,
        yRange: ClosedRange<Double>? = nil, xRange: ClosedRange<Double>? = nil,
        series: [Series] = [], impulseGroups: [ImpulseGroup] = [], annotations: [Annotation] = [],
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
        self.annotations = annotations
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
