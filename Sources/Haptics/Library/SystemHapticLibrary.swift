/// Every haptic the seeds name, as a built-in pattern.
public enum SystemHapticLibrary {
    public static let all: [SystemHaptic] = iOS + macOS + watchOS

    /// Finds a haptic by its full name ("ios.impact.heavy") or by a unique ending
    /// ("impact.heavy", "selection"). A bare name shared across platforms
    /// ("success") means the iOS one, the platform most people know it from.
    public static func named(_ query: String) -> SystemHaptic? {
        let key = query.lowercased()
        if let exact = all.first(where: { $0.name == key }) { return exact }
        let matches = all.filter { $0.name.hasSuffix("." + key) }
        return matches.count == 1 ? matches[0] : matches.first { $0.platform == .iOS }
    }

    /// The name `named` would take that is nearest to `query`, when `query` names none
    /// and one is near enough to be what was meant ("ios.impact.hevy" →
    /// "ios.impact.heavy", "impact.hevy" → "impact.heavy").
    public static func suggestion(for query: String) -> String? {
        guard named(query) == nil else { return nil }
        return Suggestion.closest(to: query.lowercased(), among: names)
    }

    /// Every name `named` takes: each full name and each of its endings after a dot.
    static let names: [String] = {
        var out: [String] = []
        for haptic in all {
            var name = Substring(haptic.name)
            while true {
                if !out.contains(String(name)) { out.append(String(name)) }
                guard let dot = name.firstIndex(of: ".") else { break }
                name = name[name.index(after: dot)...]
            }
        }
        return out
    }()

    private typealias E = HapticEvent

    static let iOS: [SystemHaptic] = [
        SystemHaptic(
            "ios.notification.success",
            meaning: "a task or action has completed",
            shape: "two taps, the second stronger and crisper: a rising pair reads as a positive outcome",
            events: [E.transient(at: 0, intensity: 0.6, sharpness: 0.5),
                     E.transient(at: 0.1, intensity: 1.0, sharpness: 0.8)]),
        SystemHaptic(
            "ios.notification.warning",
            meaning: "a task or action produced a warning of some kind",
            shape: "a strong tap then a weaker, duller one after a longer gap: asks for attention without the alarm of an error",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.6),
                     E.transient(at: 0.16, intensity: 0.6, sharpness: 0.4)]),
        SystemHaptic(
            "ios.notification.error",
            meaning: "an error has occurred",
            shape: "three rapid strong taps ending dull: the most insistent notification, and the falling sharpness reads as negative",
            events: [E.transient(at: 0, intensity: 0.9, sharpness: 0.7),
                     E.transient(at: 0.07, intensity: 0.9, sharpness: 0.6),
                     E.transient(at: 0.14, intensity: 1.0, sharpness: 0.3)]),
        SystemHaptic(
            "ios.impact.light",
            meaning: "a collision between small or lightweight UI objects",
            shape: "one gentle tap of middling sharpness: a small object carries little energy",
            events: [E.transient(at: 0, intensity: 0.45, sharpness: 0.55)]),
        SystemHaptic(
            "ios.impact.medium",
            meaning: "a collision between medium-sized or medium-weight UI objects",
            shape: "one firmer tap, slightly duller than light: more mass, more energy, lower pitch",
            events: [E.transient(at: 0, intensity: 0.7, sharpness: 0.45)]),
        SystemHaptic(
            "ios.impact.heavy",
            meaning: "a collision between large or heavyweight UI objects",
            shape: "one full-strength dull thud: heavy objects hit hard and low",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.3)]),
        SystemHaptic(
            "ios.impact.rigid",
            meaning: "a collision between hard or inflexible UI objects",
            shape: "one strong tap at full sharpness: hard materials ring crisp and short",
            events: [E.transient(at: 0, intensity: 0.9, sharpness: 1.0)]),
        SystemHaptic(
            "ios.impact.soft",
            meaning: "a collision between soft or flexible UI objects",
            shape: "a dull tap blended into a brief, quickly released buzz: soft objects spread the blow out in time",
            events: [E.transient(at: 0, intensity: 0.55, sharpness: 0.1),
                     E.continuous(at: 0, duration: 0.06, intensity: 0.35, sharpness: 0.05, release: 0.45)]),
        SystemHaptic(
            "ios.selection",
            meaning: "the values of a UI element are changing",
            shape: "the lightest, crispest tick: it repeats as a picker moves, so it must stay distinct yet unobtrusive",
            events: [E.transient(at: 0, intensity: 0.35, sharpness: 0.95)]),
    ]

    static let macOS: [SystemHaptic] = [
        SystemHaptic(
            "macos.alignment",
            meaning: "a dragged item has come into alignment (a guide, a preferred position, the end of a range)",
            shape: "a crisp, moderate snap: like a magnetic detent, felt at the moment of alignment only",
            events: [E.transient(at: 0, intensity: 0.55, sharpness: 0.9)]),
        SystemHaptic(
            "macos.level-change",
            meaning: "movement between discrete levels of pressure, as in a force click",
            shape: "a firm click of medium sharpness: each pressure step should feel like a physical notch",
            events: [E.transient(at: 0, intensity: 0.8, sharpness: 0.6)]),
        SystemHaptic(
            "macos.generic",
            meaning: "general feedback where no other pattern applies",
            shape: "one neutral tap at mid intensity and sharpness: it must not suggest any specific meaning",
            events: [E.transient(at: 0, intensity: 0.6, sharpness: 0.5)]),
    ]

    static let watchOS: [SystemHaptic] = [
        SystemHaptic(
            "watchos.notification",
            meaning: "something significant or out of the ordinary happened and needs attention (also played when a notification arrives)",
            shape: "two strong taps bracketing a short buzz: the longest, strongest pattern, hard to miss on the wrist",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.6),
                     E.continuous(at: 0.05, duration: 0.35, intensity: 0.8, sharpness: 0.3, release: 0.5),
                     E.transient(at: 0.45, intensity: 1.0, sharpness: 0.6)]),
        SystemHaptic(
            "watchos.up",
            meaning: "an important value rose above a significant threshold",
            shape: "two taps rising in intensity and sharpness: upward motion",
            events: [E.transient(at: 0, intensity: 0.6, sharpness: 0.3),
                     E.transient(at: 0.12, intensity: 1.0, sharpness: 0.9)]),
        SystemHaptic(
            "watchos.down",
            meaning: "an important value fell below a significant threshold",
            shape: "two taps falling in intensity and sharpness: the mirror of up",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.9),
                     E.transient(at: 0.12, intensity: 0.6, sharpness: 0.3)]),
        SystemHaptic(
            "watchos.success",
            meaning: "an action completed successfully",
            shape: "three quick taps climbing in strength and sharpness: an emphatic positive",
            events: [E.transient(at: 0, intensity: 0.5, sharpness: 0.4),
                     E.transient(at: 0.09, intensity: 0.75, sharpness: 0.6),
                     E.transient(at: 0.18, intensity: 1.0, sharpness: 0.9)]),
        SystemHaptic(
            "watchos.failure",
            meaning: "an action failed",
            shape: "three evenly spaced dull, heavy taps: flat and low, with no upward turn, reads as final",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.2),
                     E.transient(at: 0.15, intensity: 1.0, sharpness: 0.2),
                     E.transient(at: 0.3, intensity: 1.0, sharpness: 0.2)]),
        SystemHaptic(
            "watchos.retry",
            meaning: "an action failed but can be retried",
            shape: "two dull failure taps, then a lighter crisp one after a pause: it ends on an upward note that invites another try",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.2),
                     E.transient(at: 0.15, intensity: 1.0, sharpness: 0.2),
                     E.transient(at: 0.35, intensity: 0.7, sharpness: 0.8)]),
        SystemHaptic(
            "watchos.start",
            meaning: "an activity started, such as a timer the person can start and stop",
            shape: "one firm pulse with a short attack: something spinning up; distinct from stop's two taps",
            events: [E.continuous(at: 0, duration: 0.12, intensity: 1.0, sharpness: 0.5, attack: 0.3)]),
        SystemHaptic(
            "watchos.stop",
            meaning: "an activity the person started has stopped",
            shape: "two firm, equal short taps: a clear close that cannot be confused with start",
            events: [E.transient(at: 0, intensity: 1.0, sharpness: 0.5),
                     E.transient(at: 0.1, intensity: 1.0, sharpness: 0.5)]),
        SystemHaptic(
            "watchos.click",
            meaning: "a dial click, marking progress at set increments",
            shape: "one tiny tick at full sharpness: a detent, kept light because it repeats and overlapping clicks blur",
            events: [E.transient(at: 0, intensity: 0.5, sharpness: 1.0)]),
    ]
}
