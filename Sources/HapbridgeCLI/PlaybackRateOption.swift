import ArgumentParser
import Haptics

/// `--playback-rate` for `play` and `render`: Core Haptics' playbackRate, within
/// the range the engine plays (`HapticEngine.capabilities.playbackRateRange`; a test
/// holds the two equal). Checked while parsing, so a bad rate never starts the engine.
enum PlaybackRateOption {
    static let range: ClosedRange<Double> = 0.01...100

    static let help = ArgumentHelp(
        "Core Haptics' playbackRate, \(JSONWriter.format(range.lowerBound)) to \(JSONWriter.format(range.upperBound)): 2 plays twice as fast, 0.5 half as fast.",
        valueName: "rate")

    static func validate(_ rate: Double) throws(ValidationError) {
        guard range.contains(rate) else {
            throw ValidationError(
                "--playback-rate must be between \(JSONWriter.format(range.lowerBound)) and \(JSONWriter.format(range.upperBound)), not \(rate)")
        }
    }
}
