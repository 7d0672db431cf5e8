import Foundation

/// Percentiles of one measured quantity, printed in one line.
struct Stats {
    var samples: [Double]

    func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    func line(_ name: String) -> String {
        String(
            format: "%@ n=%6d  p50 %9.2f  p99 %9.2f  p99.9 %9.2f  max %9.2f µs",
            name.padding(toLength: 56, withPad: " ", startingAt: 0) as NSString, samples.count,
            percentile(50), percentile(99), percentile(99.9), samples.max() ?? .nan)
    }
}

func microseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}
