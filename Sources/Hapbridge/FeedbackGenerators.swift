import HapticEngine
import Haptics

// The feedback generators the seeds describe, named as UIKit names them
// (UIImpactFeedbackGenerator, UINotificationFeedbackGenerator,
// UISelectionFeedbackGenerator), over an engine on a bridge board or the simulated
// one. Their haptics are the system library's (`SystemHapticLibrary`, "ios.*"): the
// shapes and the reasons for them live there, once.
//
// As in UIKit, `prepare()` readies the hardware so the next haptic starts at once:
// here it starts the engine (HELLO, clock sync, the chip brought up), which otherwise
// the first haptic would wait for. A generator never throws at a call site that UIKit
// makes non-throwing; what went wrong is kept in `player.lastError`.

/// What the three generators share: the engine, the haptic by name, the error kept.
/// An actor, so a generator can be kept anywhere and called from any task.
public actor FeedbackPlayer {
    public let engine: HapticEngine
    /// What went wrong with the last haptic or `prepare()`, nil when it played.
    public private(set) var lastError: HapticEngineError?

    public init(engine: HapticEngine) { self.engine = engine }

    /// Starts the engine if it is not running, so that the next haptic starts at once.
    @discardableResult
    public func prepare() async -> Bool {
        if await engine.isRunning { return true }
        do { try await engine.start() } catch {
            lastError = error
            return false
        }
        return true
    }

    /// Plays a system-library haptic now, its intensities scaled by `intensity` (0...1).
    func play(_ haptic: SystemHaptic?, intensity: Double = 1) async {
        guard let haptic else { return }  // the generators name only the library's own
        guard await prepare() else { return }
        var pattern = haptic.pattern
        let scale = min(1, max(0, intensity.isNaN ? 0 : intensity))
        for i in pattern.events.indices { pattern.events[i].parameters.intensity *= scale }
        do {
            let player = try await engine.makePlayer(with: pattern)
            try await player.start(atTime: 0)
            lastError = nil
        } catch {
            lastError = error
        }
    }
}

/// UIImpactFeedbackGenerator: a physical impact, of a style and an intensity.
public final class ImpactFeedbackGenerator: Sendable {
    public enum FeedbackStyle: String, Sendable, CaseIterable {
        case light, medium, heavy, soft, rigid
    }

    public let style: FeedbackStyle

    public let player: FeedbackPlayer

    public init(style: FeedbackStyle = .medium, engine: HapticEngine) {
        self.style = style
        player = FeedbackPlayer(engine: engine)
    }

    /// Readies the engine so the next impact starts at once.
    @discardableResult public func prepare() async -> Bool { await player.prepare() }

    /// An impact at the style's full strength.
    public func impactOccurred() async { await impactOccurred(intensity: 1) }

    /// An impact at `intensity` (0...1) of the style's strength.
    public func impactOccurred(intensity: Double) async { await player.play(SystemHapticLibrary.named("ios.impact.\(style.rawValue)"), intensity: intensity) }
}

/// UINotificationFeedbackGenerator: a task's outcome.
public final class NotificationFeedbackGenerator: Sendable {
    public enum FeedbackType: String, Sendable, CaseIterable {
        case success, warning, error
    }

    public let player: FeedbackPlayer

    public init(engine: HapticEngine) { player = FeedbackPlayer(engine: engine) }

    /// Readies the engine so the next notification starts at once.
    @discardableResult public func prepare() async -> Bool { await player.prepare() }

    public func notificationOccurred(_ type: FeedbackType) async { await player.play(SystemHapticLibrary.named("ios.notification.\(type.rawValue)")) }
}

/// UISelectionFeedbackGenerator: a selection changed (a picker's detent).
public final class SelectionFeedbackGenerator: Sendable {
    public let player: FeedbackPlayer

    public init(engine: HapticEngine) { player = FeedbackPlayer(engine: engine) }

    /// Readies the engine so the next selection change starts at once.
    @discardableResult public func prepare() async -> Bool { await player.prepare() }

    public func selectionChanged() async { await player.play(SystemHapticLibrary.named("ios.selection")) }
}
