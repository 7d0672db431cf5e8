import Testing
@testable import Haptics

@Suite struct SystemLibraryTests {
    /// Every haptic the seeds name.
    static let seedNames = [
        "ios.notification.success", "ios.notification.warning", "ios.notification.error",
        "ios.impact.light", "ios.impact.medium", "ios.impact.heavy", "ios.impact.rigid", "ios.impact.soft",
        "ios.selection",
        "macos.alignment", "macos.level-change", "macos.generic",
        "watchos.notification", "watchos.up", "watchos.down", "watchos.success", "watchos.failure",
        "watchos.retry", "watchos.start", "watchos.stop", "watchos.click",
    ]

    @Test func everyHapticNamedInTheSeedsIsBuiltIn() {
        #expect(SystemHapticLibrary.all.map(\.name) == Self.seedNames)
    }

    @Test(arguments: SystemHapticLibrary.all.map(\.name))
    func eachHasItsMeaningAShapeReasonAndAPlayablePattern(_ name: String) throws {
        let haptic = try #require(SystemHapticLibrary.named(name))
        #expect(!haptic.meaning.isEmpty && !haptic.shape.isEmpty)
        #expect(!haptic.pattern.hapticEvents.isEmpty)
        // Short by design: none of them is a long vibration.
        #expect(haptic.pattern.duration <= 0.5)
        // Exports to AHAP and reads back unchanged, without warnings.
        let reread = try AHAPReader.read(AHAPWriter.string(haptic.pattern))
        #expect(reread.pattern == haptic.pattern && reread.warnings.isEmpty)
    }

    @Test func shapesFollowTheirMeanings() throws {
        func transients(_ name: String) -> [HapticEvent] {
            SystemHapticLibrary.named(name)!.pattern.events.filter { $0.type == .hapticTransient }
        }
        // Success rises, warning falls.
        let success = transients("ios.notification.success"), warning = transients("ios.notification.warning")
        #expect(success[1].parameters.intensity > success[0].parameters.intensity)
        #expect(warning[1].parameters.intensity < warning[0].parameters.intensity)
        // Error is the most insistent notification.
        #expect(transients("ios.notification.error").count > success.count)
        // Heavier impacts are stronger and duller; rigid is the sharpest, soft the dullest.
        let impacts = ["light", "medium", "heavy"].map { transients("ios.impact.\($0)")[0].parameters }
        #expect(impacts[0].intensity < impacts[1].intensity && impacts[1].intensity < impacts[2].intensity)
        #expect(impacts[0].sharpness > impacts[2].sharpness)
        #expect(transients("ios.impact.rigid")[0].parameters.sharpness == 1)
        #expect(transients("ios.impact.soft")[0].parameters.sharpness < impacts[2].sharpness)
        // Selection is the lightest of all.
        let lightest = SystemHapticLibrary.all.flatMap { $0.pattern.events }.map(\.parameters.intensity).min()
        #expect(transients("ios.selection")[0].parameters.intensity == lightest)
        // watchOS up and down mirror each other.
        let up = transients("watchos.up"), down = transients("watchos.down")
        #expect(up.map(\.parameters) == down.reversed().map(\.parameters))
    }

    @Test func lookupByUniqueEndingAndBareNamesPreferIOS() {
        #expect(SystemHapticLibrary.named("impact.heavy")?.name == "ios.impact.heavy")
        #expect(SystemHapticLibrary.named("selection")?.name == "ios.selection")
        #expect(SystemHapticLibrary.named("success")?.name == "ios.notification.success")
        #expect(SystemHapticLibrary.named("retry")?.name == "watchos.retry")
        #expect(SystemHapticLibrary.named("LEVEL-CHANGE")?.name == "macos.level-change")
        #expect(SystemHapticLibrary.named("nope") == nil)
    }
}
