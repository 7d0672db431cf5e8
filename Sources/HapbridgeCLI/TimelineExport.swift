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

    static func json(_ timeline: Timeline, source: PatternSource) -> String {
        let samples = (0..<timeline.sampleCount)
        let value: JSONValue = .object([
            ("source", .string(source.label)),
            ("sampleRate", .number(timeline.sampleRate)),
            ("playbackRate", .number(timeline.playbackRate)),
            ("duration_ms", .number(timeline.duration * 1000)),
            ("audioEvents", .number(Double(timeline.audioEventCount))),
            ("samples", .object([
                ("time_ms", .array(samples.map { .number(rounded(timeline.time(ofSample: $0) * 1000)) })),
                ("intensity", .array(timeline.intensity.map { .number(rounded($0)) })),
                ("sharpness", .array(timeline.sharpness.map { .number(rounded($0)) })),
            ])),
            ("transients", .array(timeline.transients.map { transient in
                .object([
                    ("time_ms", .number(rounded(transient.time * 1000))),
                    ("intensity", .number(rounded(transient.intensity))),
                    ("sharpness", .number(rounded(transient.sharpness))),
                ])
            })),
            ("warnings", .array(source.loaded.warnings.map { .string($0.description) })),
        ])
        return JSONWriter.string(value, pretty: false) + "\n"
    }

    static func svg(_ timeline: Timeline, source: PatternSource) -> String {
        let pattern = source.loaded.pattern
        let xs = (0..<timeline.sampleCount).map { timeline.time(ofSample: $0) * 1000 }
        var subtitle = "\(pattern.hapticEvents.count) haptic events, \(timeline.transients.count) transients, "
            + "\(ms(timeline.duration)) ms at \(num(timeline.sampleRate)) Hz"
        if timeline.playbackRate != 1 { subtitle += ", playback rate \(num(timeline.playbackRate))" }
        if timeline.audioEventCount > 0 { subtitle += ", \(timeline.audioEventCount) audio events not shown" }
        if let description = pattern.metadata["Description"], !description.isEmpty {
            subtitle += " — " + String(description.prefix(90))
        }
        let plot = Plot(
            title: source.label, subtitle: subtitle, xLabel: "time (ms)", yLabel: "value (0–1)",
            yRange: 0...1,
            xRange: 0...max(timeline.duration * 1000, 1),
            series: [
                .init(name: "intensity", color: Plot.Palette.blue, xs: xs, ys: timeline.intensity, strokeWidth: 2),
                .init(name: "sharpness", color: Plot.Palette.orange, xs: xs, ys: timeline.sharpness, strokeWidth: 1.4),
            ],
            impulseGroups: [.init(
                name: "transient (height = intensity)", color: Plot.Palette.vermillion,
                impulses: timeline.transients.map { transient in
                    .init(x: transient.time * 1000, y: transient.intensity,
                          detail: "transient at \(ms(transient.time)) ms: intensity \(num(transient.intensity)), sharpness \(num(transient.sharpness))")
                })])
        return plot.svg()
    }

    static func ms(_ seconds: Double) -> String { num(seconds * 1000) }

    static func num(_ value: Double) -> String { JSONWriter.format(rounded(value)) }

    /// Six decimals: well below anything an actuator can express, and it keeps
    /// output stable against last-bit floating-point noise.
    static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
}
