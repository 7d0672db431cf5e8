/// A player-level dynamic parameter over engine time: `sendParameters` sets a value
/// from a time on, `scheduleParameterCurve` ramps through control points whose
/// times are relative to the curve's start (Core Haptics' rule), linearly, holding
/// the last value after its end. The latest-starting entry in force wins.
struct ParameterTrack: Sendable {
    struct Entry: Sendable {
        var start: Int64
        /// The player's call order when it was made (a cancel drops earlier ones).
        var order: Int
        /// (offset from start µs, value), offsets non-decreasing; one point = a step.
        var points: [(Int64, Double)]
    }

    let defaultValue: Double
    private(set) var entries: [Entry] = []

    init(defaultValue: Double) { self.defaultValue = defaultValue }

    mutating func set(_ value: Double, at time: Int64, order: Int) {
        insert(Entry(start: time, order: order, points: [(0, value)]))
    }

    mutating func curve(_ points: [(Int64, Double)], at time: Int64, order: Int) {
        guard !points.isEmpty else { return }
        insert(Entry(start: time, order: order, points: points.sorted { $0.0 < $1.0 }))
    }

    mutating func removeAll() { entries.removeAll() }

    /// Drops the entries made before call `order` (a cancel's).
    mutating func removeAll(before order: Int) { entries.removeAll { $0.order < order } }

    private mutating func insert(_ e: Entry) {
        let i = entries.firstIndex { $0.start > e.start } ?? entries.endIndex
        entries.insert(e, at: i)
    }

    /// Forgets entries wholly superseded before `time` (keeps lookups short).
    mutating func prune(before time: Int64) {
        guard let lastBefore = entries.lastIndex(where: { $0.start <= time }), lastBefore > 0 else { return }
        entries.removeFirst(lastBefore)
    }

    func value(at time: Int64) -> Double {
        guard let e = entries.last(where: { $0.start <= time }) else { return defaultValue }
        let t = time - e.start
        // Before the first control point a curve holds the value in force before it.
        if t < e.points[0].0 {
            let before = entries.last(where: { $0.start < e.start }).map { _ in self.value(at: e.start - 1) } ?? defaultValue
            let (t0, v0) = e.points[0]
            return before + (v0 - before) * Double(t) / Double(max(1, t0))
        }
        var previous = e.points[0]
        for p in e.points.dropFirst() {
            if t < p.0 {
                let f = Double(t - previous.0) / Double(max(1, p.0 - previous.0))
                return previous.1 + (p.1 - previous.1) * f
            }
            previous = p
        }
        return previous.1
    }
}
