import Foundation

/// AHAP documents the tests write, each built for what it exercises.
enum Patterns {
    static func transient(at time: Double, intensity: Double = 1, sharpness: Double = 0.5) -> String {
        #"{"Event": {"Time": \#(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}}"#
    }

    static func continuous(at time: Double, duration: Double, intensity: Double = 0.8, sharpness: Double = 0.5) -> String {
        #"{"Event": {"Time": \#(time), "EventType": "HapticContinuous", "EventDuration": \#(duration), "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}}"#
    }

    static let audio = #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "chime.wav"}}"#

    static func document(_ entries: [String]) -> String { #"{"Version": 1, "Pattern": ["# + entries.joined(separator: ", ") + "]}" }

    /// A tap every 100 ms with a short buzz after each: a command stream as dense as
    /// the compiler makes.
    static func busy(seconds: Int) -> String {
        document((0..<seconds * 10).flatMap { i in
            [transient(at: Double(i) / 10, intensity: i % 2 == 0 ? 1 : 0.5), continuous(at: Double(i) / 10 + 0.02, duration: 0.05, intensity: 0.6)]
        })
    }

    /// Writes `text` to a file in `directory`.
    static func write(_ text: String, named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
