/// A library effect number, 1...123.
public struct ROMEffectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let validRange: ClosedRange<UInt8> = 1...123
    public var isValid: Bool { Self.validRange.contains(rawValue) }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "\(rawValue)" }
}

/// What a ROM effect is, as far as TI publishes it: a name and a strength. TI does
/// not publish the waveforms, so `shape` is our reading of the name; the chip model
/// synthesises a waveform from it (see DRV2605Model/ROMSynthesis.swift).
public struct ROMEffect: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        /// `count` short pulses `gapMilliseconds` apart; `pulseMilliseconds` long each.
        case click(count: Int, pulseMilliseconds: Double, gapMilliseconds: Double)
        /// Sustained drive at the strength, with kick and brake.
        case buzz(milliseconds: Double)
        /// Repeated on/off bursts.
        case pulsing(count: Int, onMilliseconds: Double, offMilliseconds: Double)
        /// A linear ramp of the drive level; `sharp` ramps in steps instead of smoothly.
        case ramp(from: Double, to: Double, milliseconds: Double, sharp: Bool)
        /// Sustained drive without the automatic kick and brake.
        case hum(milliseconds: Double)
    }

    public let id: ROMEffectID
    public let name: String
    /// 0...1 of full scale.
    public let strength: Double
    public let shape: Shape

    /// The whole ROM table, id order.
    public static let all: [ROMEffect] = ROMEffectTable.build()

    public static func named(_ id: ROMEffectID) -> ROMEffect? {
        guard id.isValid else { return nil }
        return all[Int(id.rawValue) - 1]
    }

    /// Finds an effect by number ("47") or by name, case- and space-insensitive
    /// ("strong click 100%", "buzz 1").
    public static func lookup(_ text: String) -> ROMEffect? {
        if let n = UInt8(String(text.filter { $0 != " " })) { return named(ROMEffectID(rawValue: n)) }
        let key = normalise(text)
        return all.first { normalise($0.name) == key }
            ?? all.first { normalise($0.name).hasPrefix(key) }
    }

    static func normalise(_ s: String) -> String {
        String(s.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}

/// The names and strengths from the datasheet's effect list, with the durations we
/// assume for synthesis (ours, not TI's).
enum ROMEffectTable {
    static func build() -> [ROMEffect] {
        var list: [ROMEffect] = []
        func add(_ name: String, _ strength: Double, _ shape: ROMEffect.Shape) {
            list.append(ROMEffect(id: ROMEffectID(rawValue: UInt8(list.count + 1)), name: name, strength: strength, shape: shape))
        }
        let click = ROMEffect.Shape.click(count: 1, pulseMilliseconds: 25, gapMilliseconds: 0)
        let sharp = ROMEffect.Shape.click(count: 1, pulseMilliseconds: 15, gapMilliseconds: 0)
        for p in [100, 60, 30] { add("Strong Click - \(p)%", Double(p) / 100, click) }  // 1-3
        for p in [100, 60, 30] { add("Sharp Click - \(p)%", Double(p) / 100, sharp) }  // 4-6
        for p in [100, 60, 30] { add("Soft Bump - \(p)%", Double(p) / 100, .click(count: 1, pulseMilliseconds: 50, gapMilliseconds: 0)) }  // 7-9
        for p in [100, 60] { add("Double Click - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 25, gapMilliseconds: 80)) }  // 10-11
        add("Triple Click - 100%", 1, .click(count: 3, pulseMilliseconds: 25, gapMilliseconds: 80))  // 12
        add("Soft Fuzz - 60%", 0.6, .pulsing(count: 10, onMilliseconds: 10, offMilliseconds: 10))  // 13
        add("Strong Buzz - 100%", 1, .buzz(milliseconds: 250))  // 14
        add("750 ms Alert 100%", 1, .buzz(milliseconds: 750))  // 15
        add("1000 ms Alert 100%", 1, .buzz(milliseconds: 1000))  // 16
        for (i, p) in [100, 80, 60, 30].enumerated() { add("Strong Click \(i + 1) - \(p)%", Double(p) / 100, click) }  // 17-20
        for (i, p) in [100, 80, 60].enumerated() { add("Medium Click \(i + 1) - \(p)%", Double(p) / 100, .click(count: 1, pulseMilliseconds: 20, gapMilliseconds: 0)) }  // 21-23
        for (i, p) in [100, 80, 60].enumerated() { add("Sharp Tick \(i + 1) - \(p)%", Double(p) / 100, .click(count: 1, pulseMilliseconds: 10, gapMilliseconds: 0)) }  // 24-26
        let shortGap = 40.0, longGap = 120.0
        for (i, p) in [100, 80, 60, 30].enumerated() { add("Short Double Click Strong \(i + 1) - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 25, gapMilliseconds: shortGap)) }  // 27-30
        for (i, p) in [100, 80, 60].enumerated() { add("Short Double Click Medium \(i + 1) - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 20, gapMilliseconds: shortGap)) }  // 31-33
        for (i, p) in [100, 80, 60].enumerated() { add("Short Double Sharp Tick \(i + 1) - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 10, gapMilliseconds: shortGap)) }  // 34-36
        for (i, p) in [100, 80, 60, 30].enumerated() { add("Long Double Sharp Click Strong \(i + 1) - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 15, gapMilliseconds: longGap)) }  // 37-40
        for (i, p) in [100, 80, 60].enumerated() { add("Long Double Sharp Click Medium \(i + 1) - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 15, gapMilliseconds: longGap)) }  // 41-43
        for (i, p) in [100, 80, 60].enumerated() { add("Long Double Sharp Tick \(i + 1) - \(p)%", Double(p) / 100, .click(count: 2, pulseMilliseconds: 10, gapMilliseconds: longGap)) }  // 44-46
        for (i, p) in [100, 80, 60, 40, 20].enumerated() { add("Buzz \(i + 1) - \(p)%", Double(p) / 100, .buzz(milliseconds: 300)) }  // 47-51
        for (i, p) in [100, 60].enumerated() { add("Pulsing Strong \(i + 1) - \(p)%", Double(p) / 100, .pulsing(count: 4, onMilliseconds: 60, offMilliseconds: 60)) }  // 52-53
        for (i, p) in [100, 60].enumerated() { add("Pulsing Medium \(i + 1) - \(p)%", Double(p) / 100, .pulsing(count: 4, onMilliseconds: 40, offMilliseconds: 40)) }  // 54-55
        for (i, p) in [100, 60].enumerated() { add("Pulsing Sharp \(i + 1) - \(p)%", Double(p) / 100, .pulsing(count: 4, onMilliseconds: 20, offMilliseconds: 30)) }  // 56-57
        let steps = [100, 80, 60, 40, 20, 10]
        for (i, p) in steps.enumerated() { add("Transition Click \(i + 1) - \(p)%", Double(p) / 100, .click(count: 1, pulseMilliseconds: 20, gapMilliseconds: 0)) }  // 58-63
        for (i, p) in steps.enumerated() { add("Transition Hum \(i + 1) - \(p)%", Double(p) / 100, .hum(milliseconds: 300)) }  // 64-69
        // 70-117: four ramp families x {Long, Medium, Short} x {Smooth, Sharp} x {1, 2}.
        let families: [(String, Double, Double)] = [
            ("Transition Ramp Down", 1.0, 0.0), ("Transition Ramp Up", 0.0, 1.0),
            ("Transition Ramp Down", 0.5, 0.0), ("Transition Ramp Up", 0.0, 0.5),
        ]
        for (familyIndex, (family, from, to)) in families.enumerated() {
            let range = "\(Int(from * 100)) to \(Int(to * 100))%"
            // 94-117 drop the "Transition " of 70-93.
            let prefix = familyIndex < 2 ? family : String(family.dropFirst("Transition ".count))
            for (length, ms) in [("Long", 1000.0), ("Medium", 500.0), ("Short", 250.0)] {
                for sharpness in ["Smooth", "Sharp"] {
                    for variant in 1...2 {
                        // Variant 2 is read as the same ramp at 80 % length (an assumption).
                        let duration = variant == 1 ? ms : ms * 0.8
                        add("\(prefix) \(length) \(sharpness) \(variant) - \(range)", max(from, to),
                            .ramp(from: from, to: to, milliseconds: duration, sharp: sharpness == "Sharp"))
                    }
                }
            }
        }
        add("Long buzz for programmatic stopping - 100%", 1, .buzz(milliseconds: 10_000))  // 118
        for (i, p) in [50, 40, 30, 20, 10].enumerated() { add("Smooth Hum \(i + 1) (No kick or brake pulse) - \(p)%", Double(p) / 100, .hum(milliseconds: 500)) }  // 119-123
        precondition(list.count == Int(ROMEffectID.validRange.upperBound), "the ROM holds 123 effects")
        return list
    }
}
