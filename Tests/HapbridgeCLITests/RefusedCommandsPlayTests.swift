import Foundation
import Testing

@testable import HapbridgeCLI

/// `hapbridge play` on a board that falls behind (`--simulate-fault timer-stall`):
/// the refusals are reported by reason, the record holds them, nothing is dropped, and
/// the exit status says the pattern did not play on time.
@Suite struct RefusedCommandsPlayTests {
    @Test("a board that stalls 30 ms refuses commands; play reports each NAK by reason, records them, sends every command again and exits 4, not 0")
    func stallingBoardIsNotASuccess() throws {
        let directory = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A drive change every 2 ms for 1 s: the deep stream keeps the board's queue full.
        let steps = (0..<500).map { i in Patterns.continuous(at: Double(i) * 0.002, duration: 0.002, intensity: i % 2 == 0 ? 1 : 0.6) }
        let file = try Patterns.write(Patterns.document(steps), named: "steps.ahap", in: directory)
        let record = directory.appendingPathComponent("record.json").path
        let run = try Hapbridge.run(["play", file, "--simulate-fault", "timer-stall", "--record", record])
        #expect(run.signal == nil && run.status == ExitStatus.playedLate.rawValue, "\(run.status): \(run.err)")
        let refused = try #require(run.out.split(separator: "\n").map(String.init).first { $0.hasPrefix("refused by the board: ") }, "\(run.out)")
        #expect(refused.contains("QUEUE_FULL") && refused.contains("(none dropped)"))
        #expect(run.err.contains("played late: ") && run.err.contains("underruns"), "\(run.err)")
        // The board's own count: every command sent ran, once.
        #expect(run.out.contains("delivered: 511 ran on the chip (the board's count)") || run.out.contains("ran on the chip (the board's count)"), "\(run.out)")

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any]
        let stats = try #require(json?["statistics"] as? [String: Any])
        let refusals = try #require(stats["refusals"] as? [String: Any])
        #expect((refusals["QUEUE_FULL"] as? Int ?? 0) > 0)
        #expect((stats["resent"] as? Int ?? 0) > 0)
        // Every drive value of the pattern ran: the record lists what the chip got, each
        // command once, and the board's count agrees.
        let commands = try #require(json?["commands"] as? [[String: Any]])
        #expect(commands.filter { $0["kind"] as? String == "rtp" }.count >= 500)
        #expect(stats["ran"] as? Int == commands.count && stats["sent"] as? Int == commands.count, "\(stats)")
        #expect(stats["undelivered"] as? Int == 0 && stats["settled"] as? Bool == true)
        #expect(json?["stopReason"] is NSNull)
    }
}
