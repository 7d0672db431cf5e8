import Hapbridge
import HapticCompilation
import Testing

/// The UIKit-named feedback generators over an engine on the simulated board in virtual
/// time (the test advances the clock; `HapticEngine.open` would run it on the wall clock).
struct FeedbackGeneratorTests {
    func engine() throws -> HapticEngine {
        let actuator = try profile()
        let opened = try DeviceCatalog().open(.simulated, simulated: SimulatedBoardSetup(actuator: actuator))
        var options = HapticEngine.Options(driving: .manual)
        options.keepsSentCommandLog = true
        return HapticEngine(link: opened.takeLink(), actuator: actuator, options: options)
    }

    /// The largest RTP amplitude the engine sent.
    func peakDrive(_ engine: HapticEngine) async -> Int {
        await engine.sentCommands.compactMap { c -> Int? in
            if case .rtp(let a) = c.command { return abs(Int(a)) }
            return nil
        }.max() ?? 0
    }

    @Test("prepare() starts the engine, so the next haptic needs no start-up; calling it again does nothing more")
    func prepareStartsTheEngine() async throws {
        let engine = try engine()
        let selection = SelectionFeedbackGenerator(engine: engine)
        #expect(!(await engine.isRunning))
        #expect(await selection.prepare())
        #expect(await engine.isRunning)
        #expect(await selection.prepare())
        await selection.selectionChanged()
        try await engine.advance(bySeconds: 0.3)
        let s = await engine.statistics
        #expect(s.commandsSent > 0 && s.lateCommands == 0)
        #expect(await selection.player.lastError == nil)
        await engine.close()
    }

    @Test("impactOccurred(intensity:) scales the style's haptic: half intensity drives a lower peak than full", arguments: ImpactFeedbackGenerator.FeedbackStyle.allCases)
    func intensityScalesTheImpact(style: ImpactFeedbackGenerator.FeedbackStyle) async throws {
        var peaks: [Int] = []
        for intensity in [1.0, 0.5] {
            let engine = try engine()
            let impact = ImpactFeedbackGenerator(style: style, engine: engine)
            await impact.impactOccurred(intensity: intensity)
            try await engine.advance(bySeconds: 0.3)
            peaks.append(await peakDrive(engine))
            #expect(await engine.statistics.lateCommands == 0)
            await engine.close()
        }
        #expect(peaks[0] > 0 && peaks[1] > 0 && peaks[1] < peaks[0], "peak drive at 1.0 and 0.5: \(peaks)")
    }

    @Test("Each notification type plays its own system-library haptic", arguments: NotificationFeedbackGenerator.FeedbackType.allCases)
    func notificationsPlay(type: NotificationFeedbackGenerator.FeedbackType) async throws {
        let engine = try engine()
        let notification = NotificationFeedbackGenerator(engine: engine)
        await notification.notificationOccurred(type)
        try await engine.advance(bySeconds: 0.5)
        #expect(await engine.statistics.commandsSent > 0)
        #expect(await notification.player.lastError == nil)
        await engine.close()
    }
}
