import Foundation

/// "Nice" axis ticks (1, 2, 5 × 10^n steps), so axes read 0, 50, 100 ms rather
/// than 0, 47.3, 94.6.
enum Ticks {
    static func niceStep(span: Double, targetCount: Int) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / Double(max(1, targetCount))
        let magnitude = pow(10, floor(log10(raw)))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    static func values(in range: ClosedRange<Double>, targetCount: Int) -> [Double] {
        let step = niceStep(span: range.upperBound - range.lowerBound, targetCount: targetCount)
        // Integer multiples of the step, rounded to 12 significant digits, so 3 × 0.2
        // prints as 0.6 and accumulated error never drops the last tick.
        let first = (range.lowerBound / step - 1e-9).rounded(.up)
        var out: [Double] = []
        var k = first
        while k * step <= range.upperBound + step * 1e-9, out.count < 100 {
            let value = k * step
            let scale = pow(10, 12 - ceil(log10(max(abs(value), step))))
            out.append((value * scale).rounded() / scale + 0.0)  // + 0.0 turns -0 into 0
            k += 1
        }
        return out
    }

    static func label(_ value: Double, step: Double) -> String {
        let decimals = max(0, min(6, Int(-floor(log10(step)))))
        return String(format: "%.\(decimals)f", value)
    }
}
