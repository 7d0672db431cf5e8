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
