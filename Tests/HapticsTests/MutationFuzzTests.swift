import Foundation
import Testing
import TestSupport
@testable import Haptics

/// Feeds mutated AHAP and .haptic documents to both readers: each must give a
/// pattern (which then renders, or fails with a typed error, and exports as
/// strict JSON that reads back equal) or a load error with a path and a rule —
/// never a crash or a hang, and never a message that echoes input unbounded.
/// Deterministic: a fixed seed.
@Suite struct MutationFuzzTests {
    /// Deterministic: the same sequence on every machine.
    typealias Random = SeededGenerator

    static let replacementValues = [
        "NaN", "Infinity", "-Infinity", "1e308", "-1e308", "1e400", "-1", "-0.0", "0", "1e-320", "31",
        "123456789012345678901234567890", "\"x\"", "null", "true", "[]", "{}", "[1,2]", "{\"a\":1}", "\"\"",
    ]
    static let replacementStrings = [
        "\"HapticContinuous\"", "\"HapticTransient\"", "\"AudioCustom\"", "\"AudioContinuous\"", "\"Event\"",
        "\"Parameter\"", "\"ParameterCurve\"", "\"EventDuration\"", "\"HapticIntensityControl\"", "\"Sustained\"",
        "\"amplitude\"", "\"emphasis\"", "\"signals\"", "\"\\ud800\"", "\"\\u0000\"", "5", "[]",
        "\"EventWaveformPath\"", "\"Pattern\"", "\"version\"", "\"\\u001b[2J\\ufffe\\u0085\"",
    ]
    /// Inserted after an object's '{': keys whose rules changed (a transient's
    /// duration, keys that apply to one event type only, an unknown-only entry).
    static let insertedMembers = [
        #""EventDuration": 0.5, "#, #""EventDuration": 0, "#, #""EventWaveformPath": null, "#,
        #""EventWaveformLoopEnabled": true, "#, #""ParameterCurves": {}, "#, #""Time": 3599.5, "EventDuration": 30, "#,
    ]

    static func corpus() throws -> [[UInt8]] {
        var documents = try Fixtures.interopAHAP
            .filter { $0.lastPathComponent != "studio_export.ahap" }
            .map(Fixtures.bytes)
        documents += try Fixtures.files(in: Fixtures.interop.appendingPathComponent("haptic/test-data"), extension: "haptic")
            .map(Fixtures.bytes)
        documents += try Fixtures.appleAHAP.map(Fixtures.bytes)
        documents += try ["Fade.ahap", "SOS.ahap", "Beethoven5.ahap"].map {
            try Fixtures.bytes(Fixtures.repositoryRoot.appendingPathComponent("Examples/\($0)"))
        }
        return documents
    }

    static func tokenRanges(in doc: [UInt8], where isStart: (UInt8) -> Bool, endingBefore isEnd: (UInt8) -> Bool) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var i = 0
        while i < doc.count {
            if isStart(doc[i]) {
                var j = i + 1
                while j < doc.count, !isEnd(doc[j]) { j += 1 }
                ranges.append(i..<min(j + (doc[i] == UInt8(ascii: "\"") ? 1 : 0), doc.count))
                i = j + 1
            } else {
                i += 1
            }
        }
        return ranges
    }

    static func mutate(_ original: [UInt8], _ random: inout Random) -> [UInt8] {
        var doc = original
        // Mostly one mutation, so a good share of documents still loads and exercises
        // the reader's clamps and rules rather than only the JSON syntax checks.
        for _ in 0...(random.below(4) == 0 ? 2 : 0) {
            guard !doc.isEmpty else { break }
            switch random.below(17) {
            case 0: // truncation
                doc = Array(doc.prefix(random.below(doc.count)))
            case 1, 2, 9, 10: // a number becomes a hostile value or another type
                let numbers = tokenRanges(in: doc, where: { $0 == UInt8(ascii: "-") || (48...57).contains($0) },
                                          endingBefore: { !(48...57).contains($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "-") })
                if let range = numbers.isEmpty ? nil : numbers[random.below(numbers.count)] {
                    doc.replaceSubrange(range, with: Array(replacementValues[random.below(replacementValues.count)].utf8))
                }
            case 3, 11: // a string becomes another key, type name or bad escape
                let strings = tokenRanges(in: doc, where: { $0 == UInt8(ascii: "\"") }, endingBefore: { $0 == UInt8(ascii: "\"") })
                if let range = strings.isEmpty ? nil : strings[random.below(strings.count)] {
                    doc.replaceSubrange(range, with: Array(replacementStrings[random.below(replacementStrings.count)].utf8))
                }
            case 4: // delete a span
                let start = random.below(doc.count)
                doc.removeSubrange(start..<min(doc.count, start + 1 + random.below(40)))
            case 5: // duplicate a span
                let start = random.below(doc.count)
                let span = Array(doc[start..<min(doc.count, start + 1 + random.below(200))])
                doc.insert(contentsOf: span, at: random.below(doc.count))
            case 6: // raw bytes: control characters, invalid UTF-8, structure
                let bytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xC3, 0xFF, 0x22, 0x5C, 0x5B, 0x7B, 0x7D, 0x5D, 0x2C, 0x3A]
                for _ in 0...random.below(4) { doc.insert(bytes[random.below(bytes.count)], at: random.below(doc.count + 1)) }
            case 7: // deep nesting in place of a value
                if let colon = doc.indices.filter({ doc[$0] == UInt8(ascii: ":") }).randomElement(using: &random) {
                    let depth = [40, 200, 5000][random.below(3)]
                    let nest = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
                    doc.insert(contentsOf: nest, at: colon + 1)
                }
            case 8: // a huge array
                if let open = doc.firstIndex(of: UInt8(ascii: "[")) {
                    let item = Array(#"{"Event":{"EventType":"HapticTransient","Time":0.5}},"#.utf8)
                    // Past the 100,000-entry limit only now and then: parsing it is the slow part.
                    let copies = random.below(40) == 0 ? 120_000 : [200, 5_000][random.below(2)]
                    doc.insert(contentsOf: Array([[UInt8]](repeating: item, count: copies).joined()), at: open + 1)
                }
            case 13: // a trailing comma before a closing bracket (Apple's sample files have them)
                let closers = doc.indices.filter { doc[$0] == UInt8(ascii: "]") || doc[$0] == UInt8(ascii: "}") }
                if let at = closers.randomElement(using: &random) { doc.insert(UInt8(ascii: ","), at: at) }
            case 14: // saved in another encoding, or with a byte-order mark
                let text = String(decoding: doc, as: UTF8.self)
                switch random.below(4) {
                case 0: doc = [0xFF, 0xFE] + text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
                case 1: doc = text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                case 2: doc = text.unicodeScalars.flatMap { scalar -> [UInt8] in withUnsafeBytes(of: scalar.value.littleEndian, Array.init) }
                default: doc = [0xEF, 0xBB, 0xBF] + doc
                }
            case 15: // a string made huge, to be echoed in some message
                let strings = tokenRanges(in: doc, where: { $0 == UInt8(ascii: "\"") }, endingBefore: { $0 == UInt8(ascii: "\"") })
                if let range = strings.isEmpty ? nil : strings[random.below(strings.count)] {
                    doc.replaceSubrange(range, with: Array(("\"" + String(repeating: "Z\\u001b", count: 5_000) + "\"").utf8))
                }
            case 16: // a member whose rule changed, inside some object
                let openers = doc.indices.filter { doc[$0] == UInt8(ascii: "{") }
                if let at = openers.randomElement(using: &random) {
                    doc.insert(contentsOf: Array(insertedMembers[random.below(insertedMembers.count)].utf8), at: at + 1)
                }
            default: // swap two bytes
                let a = random.below(doc.count), b = random.below(doc.count)
                doc.swapAt(a, b)
            }
        }
        return doc
    }

    /// A pattern that loaded must be one Core Haptics could play, inside our limits.
    static func isWellFormed(_ pattern: HapticPattern) -> Bool {
        pattern.events.allSatisfy { event in
            event.time.isFinite && event.time >= 0 && event.endTime <= PatternLimits().maxTime
                && (event.type == .hapticTransient
                    ? event.duration.map { $0 >= 0 } ?? true
                    : event.duration.map { $0 > 0 && $0 <= HapticEvent.maximumContinuousDuration } ?? (event.type == .audioCustom))
                && EventParameterID.allCases.allSatisfy { event.parameters[$0].isFinite && $0.range.contains(event.parameters[$0]) }
        }
            && pattern.parameters.allSatisfy { $0.time >= 0 && $0.id.range.contains($0.value) }
            && pattern.curves.allSatisfy { curve in
                curve.time >= 0 && !curve.controlPoints.isEmpty
                    && curve.controlPoints.allSatisfy { curve.id.range.contains($0.value) }
                    && zip(curve.controlPoints, curve.controlPoints.dropFirst()).allSatisfy { $0.time <= $1.time }
            }
    }

    /// Paths and echoed input are capped at 64 characters each (`Echo`), so no
    /// message needs more than this however large its input.
    static let maxMessageLength = 1_000

    @Test func tenThousandMutatedDocumentsEachGiveAPatternOrAnError() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count > 40)
        var random = Random(seed: 0x4841_5042_5249_4447)  // "HAPBRIDG"
        var loaded = 0, rejected = 0, rendered = 0, renderRefused = 0
        let started = ContinuousClock.now
        for _ in 0..<10_000 {
            let document = Self.mutate(corpus[random.below(corpus.count)], &random)
            for format in PatternFormat.allCases {
                do {
                    let result = try format.read(document)
                    loaded += 1
                    #expect(Self.isWellFormed(result.pattern))
                    #expect(result.warnings.allSatisfy { $0.description.count <= Self.maxMessageLength })
                    do {
                        let timeline = try Renderer.render(result.pattern, options: RenderOptions(sampleRate: 100))
                        #expect(timeline.intensity.allSatisfy { $0 >= 0 && $0 <= 1 })
                        rendered += 1
                    } catch {
                        renderRefused += 1
                    }
                    // Export is strict JSON (no warning even from the lenient parser)
                    // and reads back to the same pattern; re-reading may only repeat
                    // compatibility notes (an unknown Version, a long curve). A pattern
                    // whose transients play apart (a .haptic import) exports as Meta's
                    // pair, each part read back on its own.
                    var parts = [result.pattern]
                    if result.pattern.transientPlayback == .apart {
                        let split = result.pattern.splitForSeparatePlayers()
                        parts = [split.continuous] + (split.transients.map { [$0] } ?? [])
                    }
                    for part in parts {
                        let exported = Array(AHAPWriter.string(part).utf8)
                        #expect(throws: Never.self) { try JSONParser.parse(exported) }
                        do {
                            let reread = try AHAPReader.read(exported)
                            #expect(reread.pattern == part)
                            #expect(reread.warnings.allSatisfy { $0.kind == .compatibility })
                        } catch {
                            Issue.record("the export of a loaded pattern does not read back: \(error)")
                        }
                    }
                } catch {
                    rejected += 1
                    #expect(!error.path.isEmpty && !error.rule.isEmpty)
                    #expect(error.description.count <= Self.maxMessageLength, "\(error.description.prefix(200))")
                }
            }
        }
        print("mutation fuzz: \(loaded) loaded, \(rejected) rejected, \(rendered) rendered, \(renderRefused) refused to render, in \(ContinuousClock.now - started)")
        #expect(loaded + rejected == 20_000)
        #expect(loaded > 1_000 && rejected > 1_000)
        #expect(rendered + renderRefused == loaded)
    }
}

extension Array {
    func randomElement(using random: inout MutationFuzzTests.Random) -> Element? {
        isEmpty ? nil : self[random.below(count)]
    }
}
