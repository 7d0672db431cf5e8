/// A dynamic parameter set at a moment of the pattern: it takes effect at `time`
/// and holds until another value of the same parameter replaces it.
public struct DynamicParameter: Sendable, Hashable {
    public var id: DynamicParameterID
    public var value: Double
    public var time: Double

    public init(id: DynamicParameterID, value: Double, time: Double) {
        self.id = id
        self.value = value
        self.time = time
    }
}

/// A dynamic parameter that moves linearly between control points.
public struct ParameterCurve: Sendable, Hashable {
    public struct ControlPoint: Sendable, Hashable {
        /// Seconds from the curve's own start (Core Haptics' `relativeTime`).
        public var time: Double
        public var value: Double

        public init(time: Double, value: Double) {
            self.time = time
            self.value = value
        }
    }

    /// Core Haptics appears to play at most this many points per curve (inferred
    /// from tooling; Apple does not document it). Longer curves load with a warning.
    public static let corePlayableControlPoints = 16

    public var id: DynamicParameterID
    /// Seconds from the start of the pattern.
    public var time: Double
    public var controlPoints: [ControlPoint]

    public init(id: DynamicParameterID, time: Double, controlPoints: [ControlPoint]) {
        self.id = id
        self.time = time
        self.controlPoints = controlPoints
    }

    /// The value at `patternTime`: linear between points, the first point's value
    /// before it, and the last point's value after it (the parameter holds).
    public func value(at patternTime: Double) -> Double {
        guard let first = controlPoints.first else { return id.defaultValue }
        let t = patternTime - time
        if t <= first.time { return first.value }
        var low = 0, high = controlPoints.count - 1
        if t >= controlPoints[high].time { return controlPoints[high].value }
        while high - low > 1 {
            let mid = (low + high) / 2
            if controlPoints[mid].time <= t { low = mid } else { high = mid }
        }
        let a = controlPoints[low], b = controlPoints[high]
        let span = b.time - a.time
        return span > 0 ? a.value + (b.value - a.value) * (t - a.time) / span : b.value
    }
}
