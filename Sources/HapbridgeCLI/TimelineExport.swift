import Foundation
import Haptics
import Plot

/// The three ways `render` writes a timeline.
enum TimelineExport {
    /// Tidy rows: one per sample and one per transient, told apart by `kind`.
    static func csv(_ timeline: Timeline) -> String {
        var out = "kind,time_ms,intensity,sharpness\n"
        out.reserveCapacity(timeline.sampleCount * 32)
        for k in 0..<timeline.sampleCount {
            out += "sample,\(ms(timeline.time(ofSample: k))),\(num(timeline.intensity[k])),\(num(timeline.sharpness[k]))\n"
        }
        for transient in timeline.transients {
            out += "transient,\(ms(transient.time)),\(num(transient.intensity)),\(num(transient.sharpness))\n"
        }
        return out
    }

    /// The three sample arrays are written number by number rather than through a
    /// `JSONValue` tree: at the renderer's 5 M samples a tree takes ~800 MB.
    static func json(_ timeline: Timeline, source: PatternSource) -> String {
        func field(_ key: String, _ raw: String) -> String { JSONWriter.string(.string(key), pretty: false) + ":" + raw }
        func value(_ v: JSONValue) -> String { JSONWriter.string(v, pretty: false) }
        func numbers(_ values: some Sequence<Double>) -> String { "[" + values.map { num($0) }.joined(separator: ",") + "]" }
        let samples = [
            field("time_ms", numbers((0..<timeline.sampleCount).lazy.map { timeline.time(ofSample: $0) * 1000 })),
            field("intensity", numbers(timeline.intensity)),
            field("sharpness", numbers(timeline.sharpness)),
        ]
        let transients: JSONValue = .array(timeline.transients.map { transient in
            .object([
                ("time_ms", .number(rounded(transient.time * 1000))),
                ("intensity", .number(rounded(transient.intensity))),
                ("sharpness", .number(rounded(transient.sharpness))),
            ])
        })
        let fields = [
            field("source", value(.string(source.label))),
            field("sampleRate", value(.number(timeline.sampleRate))),
            field("playbackRate", value(.number(timeline.playbackRate))),
            field("duration_ms", value(.number(microseconds(timeline.duration) / 1000))),
            field("audioEvents", value(.number(Double(timeline.audioEventCount)))),
            field("samples", "{" + samples.joined(separator: ",") + "}"),
            field("transients", value(transients)),
            field("warnings", value(.array(source.loaded.warnings.map { .string($0.description) }))),
        ]
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    static func svg(_ timeline: Timeline, source: PatternSource) -> String { plot(timeline, source: source).svg() }

    /// Intensity (shaded) and sharpness over time, each transient a stem as high as
    /// its intensity with a diamond at its sharpness.
    static func plot(_ timeline: Timeline, source: PatternSource) -> Plot {
        let pattern = source.loaded.pattern
        let xs = (0..<timeline.sampleCount).map { timeline.time(ofSample: $0) * 1000 }
        var subtitle = "\(plural(pattern.hapticEvents.count, "haptic event")), \(plural(timeline.transients.count, "transient")), "
            + "\(String(format: "%.1f", timeline.duration * 1000)) ms, sampled at \(num(timeline.sampleRate)) Hz"
        if timeline.playbackRate != 1 { subtitle += ", playback rate \(num(timeline.playbackRate))" }
        if timeline.audioEventCount > 0 { subtitle += ", \(plural(timeline.audioEventCount, "audio event")) not shown" }
        if let description = pattern.metadata["Description"], !description.isEmpty {
            subtitle += " — " + String(description.prefix(90))
        }
        // Sharpness means nothing where nothing plays: a gap, not a line along 0.
        let sharpness = zip(timeline.intensity, timeline.sharpness).map { $0 > 0 ? $1 : .nan }
        return Plot(
            title: source.label, subtitle: subtitle, xLabel: "time (ms)", yLabel: "value (0–1)",
            yRange: 0...1,
            // A lone transient has no duration: keep a readable 100 ms window.
            xRange: 0...max(timeline.duration * 1000, 100),
            series: [
                .init(name: "intensity", color: Plot.Palette.blue, xs: xs, ys: timeline.intensity, strokeWidth: 2, filled: true),
                .init(name: "sharpness", color: Plot.Palette.orange, xs: xs, ys: sharpness, strokeWidth: 1.4),
            ],
            impulseGroups: [.init(
                name: "transient (height = intensity)", color: Plot.Palette.vermillion,
                impulses: timeline.transients.map { transient in
                    .init(x: transient.time * 1000, y: transient.intensity, marker: transient.sharpness,
                          detail: "transient at \(ms(transient.time)) ms: intensity \(num(transient.intensity)), sharpness \(num(transient.sharpness))")
                },
                marker: (name: "transient sharpness", color: Plot.Palette.orange))])
    }

    static func ms(_ seconds: Double) -> String { num(seconds * 1000) }

    /// A duration to the whole microsecond: 0.3 s is 300 ms, not the
    /// 300.00000000000006 that `0.3 * 1000` gives in binary floating point.
    static func microseconds(_ seconds: Double) -> Double { (seconds * 1_000_000).rounded() }

    static func num(_ value: Double) -> String { JSONWriter.format(rounded(value)) }

    /// Six decimals: well below anything an actuator can express, and it keeps
    /// output stable against last-bit floating-point noise.
    static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
}
