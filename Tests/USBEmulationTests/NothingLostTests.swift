import Foundation
import Testing
import USBEmulation

extension EmulatedBoards {
    /// `hapbridge play` on a board that stalls mid-play (`emulate control stall`: its
    /// firmware held, no timer, no USB intake, then it runs on late and refuses what no
    /// longer fits), with the emulation's log as the witness of what the chip got. An
    /// instrument never says it played what it did not: the record lists exactly the
    /// drive values the chip was written, in order; every command sent is accounted for
    /// (ran, flushed by the stop, withdrawn, or refused and not sent again because the
    /// play stopped first); "none dropped" is printed only when it is true; and the exit
    /// status is never 0 for a play that was late or stopped.
    @Suite
    struct NothingLostTests {
        /// A 10 s continuous event whose intensity curve alternates 0.2 / 1.0 every 0.1 s:
        /// a drive change every millisecond or so at `--playback-rate 2` (the issue's
        /// reproduction).
        static let pattern: String = {
            var curves: [String] = []
            for first in stride(from: 0, to: 100, by: 16) {
                let points = (first..<min(first + 16, 100)).map { i in
                    "{\"Time\": \(Double(i - first) / 10), \"ParameterValue\": \(i % 2 == 0 ? 0.2 : 1.0)}"
                }
                curves.append(
                    "{\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"Time\": \(Double(first) / 10), "
                        + "\"ParameterCurveControlPoints\": [\(points.joined(separator: ", "))]}}")
            }
            let event =
                "{\"Event\": {\"Time\": 0, \"EventType\": \"HapticContinuous\", \"EventDuration\": 10, \"EventParameters\": "
                + "[{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": 1}, {\"ParameterID\": \"HapticSharpness\", \"ParameterValue\": 0.5}]}}"
            return "{\"Version\": 1, \"Pattern\": [\(([event] + curves).joined(separator: ", "))]}"
        }()

        @Test(
            "a board stalled mid-play: the record is exactly what the chip was written (the emulation's log), every command sent is accounted for, and a late or stopped play never exits 0",
            arguments: Emulate.backings, [40, 150, 400])
        func stalledBoardIsAccountedFor(_ backing: Emulate.Backing, stallMilliseconds: Int) throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nothing-lost-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let pattern = dir.appendingPathComponent("alternating.ahap").path
            try Self.pattern.write(toFile: pattern, atomically: true, encoding: .utf8)
            let log = dir.appendingPathComponent("emulation.jsonl").path
            let record = dir.appendingPathComponent("record.json").path
            // The stall comes once the play is streaming (300 drive writes in the log:
            // polled, bounded), so it lands inside the play whatever the machine's pace.
            let h = Emulate.hapbridge
            let script = """
                \(h) play '\(pattern)' --device usb --actuator pmd-c10-100 --playback-rate 2 --record '\(record)' & play=$!
                n=0
                while [ "$(grep -c '"bytes":"02' '\(log)' 2>/dev/null)" -lt 300 ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
                \(h) emulate control stall \(stallMilliseconds)
                wait $play
                echo "play-status=$?"
                """
            let run = try Emulate.bridge(backing, ["--log", log], ["bash", "-c", script])
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("ok stalled 1-1 for \(stallMilliseconds) ms"), "\(run)")
            let status = try #require(Self.playStatus(run.output), "\(run)")

            let entries = try EmulationLog.entries(atPath: log)
            let stallAt = try #require(entries.first { $0.event == "stall" }?.host_us, "no stall in the log")
            // The chip's RTP_INPUT writes, in the order the chip took them.
            let rtpWrites = entries.filter { $0.event == "i2c" && $0.op == "w" && $0.address == 0x5A && $0.bytes?.hasPrefix("02") == true }
            #expect(rtpWrites.contains { $0.host_us < stallAt } && rtpWrites.contains { $0.host_us > stallAt }, "the stall fell outside the play")
            let chip = rtpWrites.compactMap { $0.decodedBytes.flatMap { $0.count == 2 ? Int($0[1]) : nil } }

            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
            let commands = try #require(json["commands"] as? [[String: Any]])
            let stats = try #require(json["statistics"] as? [String: Any])
            // What the record says the chip was written: an RTP's amplitude, a stop's RTP 0
            // (PROTOCOL.md: "the first of the stop's writes (RTP_INPUT = 0) for CMD_STOP").
            let recorded: [Int] = commands.compactMap { c in
                switch c["kind"] as? String {
                case "rtp": (c["amplitude"] as? Int).map { $0 & 0xFF }
                case "stop": 0
                default: nil
                }
            }
            #expect(recorded.count > 300, "\(run)")
            // The chip got exactly the recorded drive, in order; besides it only zeros: the
            // board's RTP 0 at power-up and the stops' (STOP_ALL, a safety stop) at the end.
            let start = try #require(Self.find(recorded, in: chip), "the record is not what the chip got\n\(run)")
            #expect(chip[..<start].allSatisfy { $0 == 0 }, "the chip was written drive values the record does not list before it")
            #expect(chip[(start + recorded.count)...].allSatisfy { $0 == 0 }, "the chip was written drive values the record does not list after it")

            let int = { (key: String) -> Int? in stats[key] as? Int }
            let sent = try #require(int("sent")), ran = try #require(int("ran"), "the board's count is in the record")
            #expect(stats["settled"] as? Bool == true, "\(stats)")
            #expect(ran == commands.count, "ran \(ran), listed \(commands.count)")
            let undelivered = try #require(int("undelivered"))
            #expect(sent == ran + (int("flushed") ?? -1) + (int("withdrawn") ?? -1) + (int("queued") ?? -1) + undelivered, "\(stats)")
            // "none dropped" only when nothing was.
            if run.output.contains("(none dropped)") { #expect(undelivered == 0, "\(run)") }
            // Late or stopped, never a success: 3 stopped before the end (its reason said),
            // 4 played to the end but late.
            let stopReason = json["stopReason"] as? String
            let late = (int("late") ?? 0) > 0 || (int("underruns") ?? 0) > 0
            #expect(status != 0 || (stopReason == nil && !late && undelivered == 0), "\(run)")
            if status == 3 { #expect(stopReason != nil && run.errors.contains("stopped early")) }
            if status == 4 { #expect(stopReason == nil && late && run.errors.contains("played late: ")) }
            if stopReason == nil { #expect(undelivered == 0, "a play that ran to its end lost \(undelivered) commands") }
        }

        static func playStatus(_ output: String) -> Int? {
            output.split(separator: "\n").lazy.compactMap { $0.hasPrefix("play-status=") ? Int($0.dropFirst("play-status=".count)) : nil }.first
        }

        /// Where `needle` starts as a contiguous run in `haystack`.
        static func find(_ needle: [Int], in haystack: [Int]) -> Int? {
            guard needle.count <= haystack.count else { return nil }
            return (0...(haystack.count - needle.count)).first { i in haystack[i..<(i + needle.count)].elementsEqual(needle) }
        }
    }
}
