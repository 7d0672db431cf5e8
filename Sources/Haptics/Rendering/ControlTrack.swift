/// The value of one dynamic parameter over a pattern's time: the control that
/// started most recently (a Parameter's value, or a curve's interpolated value)
/// governs, until the next one of the same parameter starts. Before any control
/// the parameter has its default. At equal start times a curve takes precedence
/// over a Parameter, and a later entry over an earlier one of the same kind.
struct ControlTrack: Sendable {
    private enum Control: Sendable {
        case constant(Double)
        case curve(ParameterCurve)
    }

    let id: DynamicParameterID
    private let starts: [Double]
    private let controls: [Control]

    init(id: DynamicParameterID, pattern: HapticPattern) {
        self.id = id
        var entries: [(start: Double, rank: Int, control: Control)] = []
        for parameter in pattern.parameters where parameter.id == id {
            entries.append((parameter.time, entries.count, .constant(parameter.value)))
        }
        for curve in pattern.curves where curve.id == id {
            entries.append((curve.time, entries.count, .curve(curve)))
        }
        entries.sort { $0.start != $1.start ? $0.start < $1.start : $0.rank < $1.rank }
        starts = entries.map(\.start)
        controls = entries.map(\.control)
    }

    var isDefault: Bool { controls.isEmpty }

    /// The value at each sample time `k * step` (pattern seconds), control by
    /// control: O(samples + points), with no per-sample search or reference
    /// counting (this is the renderer's inner loop).
    func sampled(count: Int, step: Double) -> [Double] {
        var values = [Double](repeating: id.defaultValue, count: count)
        guard !controls.isEmpty else { return values }
        // The first sample whose time is at or after `start`, computed with the
        // same arithmetic as the sample times themselves so the two agree exactly.
        func firstSample(atOrAfter start: Double) -> Int {
            var k = Renderer.sampleIndex(atOrAfter: start / step, count: count)
            while k > 0, Double(k - 1) * step >= start { k -= 1 }
            while k < count, Double(k) * step < start { k += 1 }
            return k
        }
        values.withUnsafeMutableBufferPointer { out in
            var from = firstSample(atOrAfter: starts[0])
            for c in controls.indices {
                let to = c + 1 < controls.count ? firstSample(atOrAfter: starts[c + 1]) : count
                defer { from = max(from, to) }
                guard from < to else { continue }
                switch controls[c] {
                case .constant(let value):
                    for k in from..<to { out[k] = value }
                case .curve(let curve):
                    curve.controlPoints.withUnsafeBufferPointer { points in
                        var segment = 0
                        for k in from..<to {
                            let local = Double(k) * step - curve.time
                            while segment + 1 < points.count, points[segment + 1].time <= local { segment += 1 }
                            if local <= points[0].time {
                                out[k] = points[0].value
                            } else if segment + 1 >= points.count {
                                out[k] = points[segment].value
                            } else {
                                let a = points[segment], b = points[segment + 1]
                                let span = b.time - a.time
                                out[k] = span > 0 ? a.value + (b.value - a.value) * (local - a.time) / span : b.value
                            }
                        }
                    }
                }
            }
        }
        return values
    }

    /// The value at pattern time `t` (seconds).
    func value(at t: Double) -> Double {
        // Last control whose start is <= t.
        var low = 0, high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= t { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return id.defaultValue }
        switch controls[low - 1] {
        case .constant(let value): return value
        case .curve(let curve): return curve.value(at: t)
        }
    }
}
