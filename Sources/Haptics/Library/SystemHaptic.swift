/// One built-in pattern of the system haptics library: a haptic that Apple's
/// platforms define with a documented meaning, rebuilt as a pattern for our
/// actuators, with the reason for its shape.
///
/// Apple does not publish the waveforms; these shapes are ours, designed from the
/// documented meanings with a few consistent rules: rising intensity and sharpness
/// reads as positive, falling as negative; more taps and a longer pattern demand
/// more attention; sharpness carries material (hard = sharp, soft = dull); the
/// haptics people feel most often are the shortest and lightest.
public struct SystemHaptic: Sendable, Hashable {
    public enum Platform: String, Sendable, CaseIterable {
        case iOS = "ios", macOS = "macos", watchOS = "watchos"
    }

    /// Dotted, lower-case: "ios.notification.success".
    public var name: String
    public var platform: Platform
    /// What the platform's guidelines say it means, in our words.
    public var meaning: String
    /// Why the pattern has this shape.
    public var shape: String
    public var pattern: HapticPattern

    init(_ name: String, meaning: String, shape: String, events: [HapticEvent]) {
        self.name = name
        platform = Platform(rawValue: String(name.prefix { $0 != "." }))!
        self.meaning = meaning
        self.shape = shape
        pattern = HapticPattern(
            events: events,
            metadata: .init(project: "hapbridge system haptics", created: "hapbridge",
                            description: "\(name): \(meaning)"))
    }
}
