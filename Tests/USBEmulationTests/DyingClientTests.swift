import Foundation
import Testing

extension EmulatedBoards {
    /// A client that dies leaves the board usable. On Linux the kernel
    /// releases a dead process's claims and discards its URBs when its last descriptor
    /// closes (usbdev_release); the emulation must do the same, whatever the client
    /// was doing (inside an ioctl, a parked reap, a transfer in flight) and whatever
    /// happened to the board meanwhile.
    @Suite
    struct DyingClientTests {
        /// Rounds of the randomized test, and the bound on each client.
        static let rounds = 60
        static let clientBoundSeconds = 20

        @Test("A client killed mid-play leaves the board free: the next one opens it at once, not 'in use by another program'", arguments: Emulate.backings)
        func killedClientReleasesItsClaim(_ backing: Emulate.Backing) throws {
            let script = """
                h=\(Emulate.hapbridge)
                for i in 1 2 3; do
                  $h play \(try Self.longPattern()) --device usb --actuator pmd-c10-100 >/dev/null 2>&1 & c=$!
                  sleep 0.4
                  kill -9 $c; wait $c
                  timeout -s KILL \(Self.clientBoundSeconds) $h info --device usb >/dev/null || exit 10
                done
                """
            defer { Self.removePattern() }
            let run = try Emulate.bridge(backing, [], ["sh", "-c", script])
            #expect(run.status == 0, "\(run)")
            #expect(!run.errors.contains("in use by another program"), "\(run)")
            #expect(!run.errors.contains("IoctlClient"), "umockdev complained about a client object: \(run)")
        }

        @Test("60 random rounds of kill -9 / unplug / detach / replug: every fresh client ends with 0, 1 or 3 within its bound; the board is usable at the end")
        func randomKillsUnplugsAndReplugs() throws {
            let seed = ProcessInfo.processInfo.environment["HAPBRIDGE_DYING_CLIENT_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 1...UInt64.max)
            print("DyingClientTests: seed \(seed) (rerun with HAPBRIDGE_DYING_CLIENT_SEED=\(seed))")
            var rng = SeededGenerator(seed: seed)
            let rounds = (1...Self.rounds).map { Round.random(number: $0, using: &rng) }
            defer { Self.removePattern() }
            let script = try Self.prelude() + rounds.map(\.script).joined(separator: "\n") + "\n" + Self.finale
            let run = try Emulate.run(
                [Emulate.hapbridge, "emulate", "bridge"] + Emulate.Backing.core.arguments + ["--", "sh", "-c", script],
                hangGuardSeconds: 300)
            #expect(run.status == 0, "seed \(seed): \(run)")
            let clients = run.records("client")
            let tally = Dictionary(grouping: clients, by: { $0["status"] ?? "?" }).mapValues(\.count).sorted { $0.key < $1.key }
            print("DyingClientTests: seed \(seed): \(clients.count) fresh clients, by status: \(tally.map { "\($0.key)×\($0.value)" }.joined(separator: " "))")
            #expect(clients.count == Self.rounds + 1, "seed \(seed): \(run)")
            for c in clients {
                let status = c["status"] ?? "?"
                #expect(["0", "1", "3"].contains(status), "seed \(seed): a fresh client ended with \(status) (137: killed at its bound of \(Self.clientBoundSeconds) s): \(c)\n\(run)")
            }
            // A dead client's claim is gone by the time the next client looks (the
            // kernel closes a process's files before its parent hears of its death).
            for c in clients where (c["error"] ?? "").contains("in use by another program") {
                Issue.record("seed \(seed): a dead client's claim outlived it: \(c)")
            }
            for v in run.records("victim") {
                // Killed by us (137), or it had ended by itself before the kill.
                #expect(["0", "1", "3", "137"].contains(v["status"] ?? "?"), "seed \(seed): \(v)\n\(run)")
            }
            #expect(run.record("final")["status"] == "0", "seed \(seed): the board was not usable at the end: \(run)")
            #expect(!run.errors.contains("received EOF"), "seed \(seed): \(run)")
            #expect(!run.errors.contains("IoctlClient"), "seed \(seed): \(run)")
        }

        /// One round: maybe a client running (playing, or finding and opening the
        /// board: `info`, `list`), maybe a board operation under it, the client killed,
        /// then a fresh client.
        struct Round {
            var number: Int
            /// The client that is killed, if any.
            var victim: String?
            var operation: String?
            var delays: (Int, Int)
            var fresh: String

            static func random(number: Int, using rng: inout SeededGenerator) -> Round {
                let operations: [String?] = [nil, nil, "unplug", "detach", "replug", "replug"]
                let victims: [String?] = [nil, "play \"$pattern\" --device usb --actuator pmd-c10-100", "play \"$pattern\" --device usb --actuator pmd-c10-100", "info --device usb", "list"]
                return Round(
                    number: number, victim: victims.randomElement(using: &rng) ?? nil,
                    operation: operations.randomElement(using: &rng) ?? nil,
                    delays: (Int.random(in: 0...400, using: &rng), Int.random(in: 0...200, using: &rng)),
                    fresh: Bool.random(using: &rng) ? "info --device usb" : "list")
            }

            /// Milliseconds as sleep(1) takes them.
            static func seconds(_ ms: Int) -> String { String(format: "%.3f", Double(ms) / 1000) }

            var script: String {
                let victimName = victim.map { String($0.prefix { $0 != " " }) } ?? "none"
                var lines = ["echo \"round n=\(number) victim=\(victimName) operation=\(operation ?? "none")\""]
                if let victim { lines += ["$h \(victim) >/dev/null 2>&1 & c=$!", "sleep \(Self.seconds(delays.0))"] }
                if let operation { lines += ["$h emulate control \(operation) >/dev/null 2>&1", "sleep \(Self.seconds(delays.1))"] }
                if victim != nil { lines += ["kill -9 $c 2>/dev/null; wait $c; echo \"victim n=\(number) status=$?\""] }
                lines += ["fresh \(number) \(fresh)"]
                return lines.joined(separator: "\n")
            }
        }

        /// Shell functions: `fresh N CMD` runs a fresh client under its bound and reports it.
        static func prelude() throws -> String {
            """
            h=\(Emulate.hapbridge)
            pattern=\(try longPattern())
            fresh() {
              n=$1; shift
              timeout -s KILL \(clientBoundSeconds) $h "$@" >/dev/null 2>"$pattern.err"; s=$?
              echo "client n=$n status=$s error=\\"$(tail -n 1 "$pattern.err" | tr -d '"')\\""
            }

            """
        }

        /// The board is plugged back and a client must find it free.
        static let finale = """
            $h emulate control replug >/dev/null 2>&1
            fresh final info --device usb
            timeout -s KILL \(clientBoundSeconds) $h info --device usb >/dev/null 2>&1; echo "final status=$?"
            """

        static let patternPath = FileManager.default.temporaryDirectory.appendingPathComponent("dying-client-\(getpid()).ahap").path

        static func removePattern() {
            for p in [patternPath, patternPath + ".err"] { try? FileManager.default.removeItem(atPath: p) }
        }

        /// A 60 s buzz (outlives every round).
        static func longPattern() throws -> String {
            let path = patternPath
            let ahap = """
                {"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 60.0,
                  "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
                                      {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}
                """
            try ahap.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }
}

/// xorshift64*: the same rounds for the same seed on every machine.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
